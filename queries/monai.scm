; MONAI (Project-MONAI/MONAI at 0dab094, monai/data/dataloader.py):
; class DataLoader(torch.utils.data.DataLoader):
;     def __init__(self, dataset, num_workers=0, **kwargs)
; passes num_workers and every other keyword to torch's DataLoader; it sets its own
; collate_fn and worker_init_fn when they are not given (module-level functions).
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "monai.data.DataLoader" "monai.data.dataloader.DataLoader")
  (#set! dl.entry "monai.data.DataLoader")
  (#set! dl.kind "class")
  (#set! dl.positional "dataset num_workers")
  (#set! dl.keywords "all"))

; MONAI (at 00b5854, monai/data/thread_buffer.py):
; class ThreadDataLoader(monai.data.DataLoader):
;     def __init__(self, dataset, buffer_size=1, buffer_timeout=0.01, repeats=1,
;                  use_thread_workers=False, **kwargs)
; `use_thread_workers=True` with num_workers > 1 makes the workers threads in a substituted
; multiprocessing context, so the start method is then not fork or spawn.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "monai.data.ThreadDataLoader" "monai.data.thread_buffer.ThreadDataLoader")
  (#set! dl.entry "monai.data.ThreadDataLoader")
  (#set! dl.kind "class")
  (#set! dl.positional "dataset buffer_size buffer_timeout repeats use_thread_workers")
  (#set! dl.keywords "all")
  (#set! dl.opaque "use_thread_workers"))
