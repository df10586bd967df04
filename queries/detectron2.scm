; detectron2 0.6 (facebookresearch/detectron2 at 02b5c4e, detectron2/data/build.py).
; Both factories are @configurable: called with a config (`build_detection_train_loader(cfg)`)
; they read num_workers from cfg.DATALOADER.NUM_WORKERS, so a worker count not written in the
; call is unknown.

; build_detection_train_loader(dataset, *, mapper, sampler=None, total_batch_size,
; aspect_ratio_grouping=True, num_workers=0, collate_fn=None, **kwargs) ->
; build_batch_data_loader(..., prefetch_factor=2, persistent_workers=False, pin_memory=False,
; **kwargs), which passes prefetch_factor only when num_workers > 0.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "detectron2.data.build_detection_train_loader" "detectron2.data.build.build_detection_train_loader")
  (#set! dl.entry "detectron2.data.build_detection_train_loader")
  (#set! dl.kind "factory")
  (#set! dl.positional "")
  (#set! dl.keywords "num_workers collate_fn persistent_workers pin_memory timeout multiprocessing_context")
  (#set! dl.default.num_workers "?")
  (#set! dl.default.batch_size "?")
  (#set! dl.default.sampler "?")
  (#set! dl.default.batch_sampler "?")
  (#set! dl.default.collate_fn "?")
  (#set! dl.default.worker_init_fn "?")
  (#set! dl.default.drop_last "?")
  (#set! dl.default.prefetch_factor "?"))

; build_detection_test_loader(dataset, *, mapper, sampler=None, batch_size=1, num_workers=0,
; collate_fn=None) -> DataLoader(dataset, batch_size=batch_size, sampler=sampler,
; drop_last=False, num_workers=num_workers, collate_fn=...).
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "detectron2.data.build_detection_test_loader" "detectron2.data.build.build_detection_test_loader")
  (#set! dl.entry "detectron2.data.build_detection_test_loader")
  (#set! dl.kind "factory")
  (#set! dl.positional "")
  (#set! dl.keywords "batch_size num_workers collate_fn")
  (#set! dl.default.num_workers "?")
  (#set! dl.default.batch_size "?")
  (#set! dl.default.sampler "?")
  (#set! dl.default.collate_fn "?"))
