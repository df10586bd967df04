; WILDS (p-lambda/wilds at 4726775, wilds/common/data_loaders.py):
; get_train_loader(loader, dataset, batch_size, uniform_over_groups=None, grouper=None,
;                  distinct_groups=True, n_groups_per_batch=None, **loader_kwargs)
; builds DataLoader(dataset, shuffle=..., sampler=..., collate_fn=dataset.collate,
; batch_size=batch_size, **loader_kwargs); with loader='group' it passes a batch sampler
; instead. Which sampler and shuffling it uses depends on `loader`, so those stay unknown.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "wilds.common.data_loaders.get_train_loader")
  (#set! dl.entry "wilds.common.data_loaders.get_train_loader")
  (#set! dl.kind "factory")
  (#set! dl.positional "_ dataset batch_size _ _ _ _")
  (#set! dl.keywords "dataset batch_size num_workers pin_memory timeout worker_init_fn multiprocessing_context generator prefetch_factor persistent_workers pin_memory_device in_order")
  (#set! dl.default.shuffle "?")
  (#set! dl.default.sampler "?")
  (#set! dl.default.batch_sampler "?")
  (#set! dl.default.drop_last "?")
  (#set! dl.default.collate_fn "?"))

; get_eval_loader(loader, dataset, batch_size, grouper=None, **loader_kwargs) builds
; DataLoader(dataset, shuffle=False, sampler=None, collate_fn=dataset.collate,
; batch_size=batch_size, **loader_kwargs) for loader='standard'.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "wilds.common.data_loaders.get_eval_loader")
  (#set! dl.entry "wilds.common.data_loaders.get_eval_loader")
  (#set! dl.kind "factory")
  (#set! dl.positional "_ dataset batch_size _")
  (#set! dl.keywords "dataset batch_size num_workers pin_memory drop_last timeout worker_init_fn multiprocessing_context generator prefetch_factor persistent_workers pin_memory_device in_order")
  (#set! dl.default.shuffle "False")
  (#set! dl.default.collate_fn "?"))
