; webdataset (webdataset/webdataset at 0498e19, webdataset/compat.py):
; class WebLoader(DataPipeline, FluidInterface):
;     def __init__(self, *args, **kw): super().__init__(DataLoader(*args, **kw))
; every argument is torch's DataLoader's, in its order.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "webdataset.WebLoader" "webdataset.compat.WebLoader")
  (#set! dl.entry "webdataset.WebLoader")
  (#set! dl.kind "factory"))
