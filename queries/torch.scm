; PyTorch's own loader, and loaders made from it with functools.partial.
;
; Every pattern captures the whole call as @loader and the called expression as @callee.
; `#dl-resolves-to?` holds when the capture resolves through the file's imports to one of the
; qualified names; `#set!` properties describe how the callee's arguments reach DataLoader
; (see queries/README.md).

; torch 2.x, torch/utils/data/dataloader.py: DataLoader.__init__(dataset, batch_size=1,
; shuffle=None, sampler=None, batch_sampler=None, num_workers=0, collate_fn=None,
; pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
; multiprocessing_context=None, generator=None, *, prefetch_factor=None,
; persistent_workers=False, pin_memory_device="", in_order=True)
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee "torch.utils.data.DataLoader" "torch.utils.data.dataloader.DataLoader")
  (#set! dl.entry "torch.utils.data.DataLoader")
  (#set! dl.kind "class"))

; Python 3.12 functools.partial(func, /, *args, **keywords): the arguments given to the
; partial are DataLoader's (its first positional argument is the class); the call of the
; partial may add any other, so what the partial leaves out is unknown.
((call
   function: (_) @callee
   arguments: (argument_list . (_) @class)) @loader
  (#dl-resolves-to? @callee "functools.partial")
  (#dl-resolves-to? @class "torch.utils.data.DataLoader" "torch.utils.data.dataloader.DataLoader")
  (#set! dl.entry "functools.partial(DataLoader)")
  (#set! dl.positional "_ dataset batch_size shuffle sampler batch_sampler num_workers collate_fn pin_memory drop_last timeout worker_init_fn multiprocessing_context generator")
  (#set! dl.partial "true"))
