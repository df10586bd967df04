; ultralytics (ultralytics/ultralytics at 002363f, ultralytics/data/build.py):
; build_dataloader(dataset, batch, workers, shuffle=True, rank=-1, drop_last=False) ->
; InfiniteDataLoader(dataset=dataset, batch_size=batch, num_workers=min(os.cpu_count() //
; max(nd, 1), workers), prefetch_factor=4 if nw > 0 else None, pin_memory=nd > 0, ...).
; The worker count is capped by the CPU count: only workers=0 is certain.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "ultralytics.data.build_dataloader" "ultralytics.data.build.build_dataloader")
  (#set! dl.entry "ultralytics.data.build_dataloader")
  (#set! dl.kind "factory")
  (#set! dl.positional "dataset batch workers")
  (#set! dl.keywords "dataset")
  (#set! dl.rename.batch "batch_size")
  (#set! dl.rename.workers "num_workers")
  (#set! dl.capped "num_workers")
  (#set! dl.default.num_workers "?")
  (#set! dl.default.pin_memory "?")
  (#set! dl.default.prefetch_factor "?")
  (#set! dl.default.shuffle "?")
  (#set! dl.default.sampler "?")
  (#set! dl.default.drop_last "?")
  (#set! dl.default.collate_fn "?"))
