; timm 1.0.29.dev0 (huggingface/pytorch-image-models at aa4b585, timm/data/loader.py):
; create_loader(dataset, input_size, batch_size, is_training=False, ..., num_workers=1, ...,
; collate_fn=None, pin_memory=False, ..., persistent_workers=True, ...) builds
; DataLoader(dataset, num_workers=num_workers, collate_fn=..., pin_memory=pin_memory,
; worker_init_fn=partial(_worker_init, ...), persistent_workers=persistent_workers, plus
; batch_size, shuffle, sampler and drop_last, or a batch_sampler), computed from its own
; arguments. Its defaults differ from DataLoader's: one worker, persistent workers.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "timm.data.create_loader" "timm.data.loader.create_loader")
  (#set! dl.entry "timm.data.create_loader")
  (#set! dl.kind "factory")
  (#set! dl.positional "dataset input_size batch_size")
  (#set! dl.keywords "dataset batch_size num_workers collate_fn pin_memory persistent_workers")
  (#set! dl.default.num_workers "1")
  (#set! dl.default.pin_memory "False")
  (#set! dl.default.persistent_workers "True")
  (#set! dl.default.collate_fn "?")
  (#set! dl.default.shuffle "?")
  (#set! dl.default.sampler "?")
  (#set! dl.default.batch_sampler "?")
  (#set! dl.default.drop_last "?")
  (#set! dl.default.worker_init_fn "?"))

; timm (at aa4b585, timm/data/loader.py): class MultiEpochsDataLoader(torch.utils.data.DataLoader)
; with __init__(self, *args, **kwargs) passing everything to DataLoader.__init__, then
; starting its iterator (and so its workers) in __init__ to reuse them across epochs.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "timm.data.loader.MultiEpochsDataLoader")
  (#set! dl.entry "timm.data.loader.MultiEpochsDataLoader")
  (#set! dl.kind "class"))
