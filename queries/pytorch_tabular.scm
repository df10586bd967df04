; pytorch_tabular (manujosephv/pytorch_tabular 1.1.0 at 023db27, src/pytorch_tabular/config/config.py
; and tabular_datamodule.py): the DataConfig dataclass (first field target) holds the DataLoader
; settings TabularModel's data module uses for its train, validation and inference loaders:
; num_workers=0, pin_memory=True, and dataloader_kwargs={} passed on as `**kwargs`. Batch size and
; shuffling come from TrainerConfig and the data module; the start method is never set.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "pytorch_tabular.config.DataConfig" "pytorch_tabular.config.config.DataConfig")
  (#set! dl.entry "pytorch_tabular.config.DataConfig")
  (#set! dl.kind "factory")
  (#set! dl.positional "target")
  (#set! dl.keywords "num_workers pin_memory")
  (#set! dl.opaque "dataloader_kwargs")
  (#set! dl.default.pin_memory "True")
  (#set! dl.default.batch_size "?")
  (#set! dl.default.shuffle "?")
  (#set! dl.default.sampler "?")
  (#set! dl.default.drop_last "?")
  (#set! dl.default.collate_fn "?"))
