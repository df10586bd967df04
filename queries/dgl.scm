; DGL (dmlc/dgl at 1f7a1fab, python/dgl/dataloading/dataloader.py). Both classes below are
; torch.utils.data.DataLoader subclasses that pass their **kwargs on to DataLoader.__init__.

; DataLoader(graph, indices, graph_sampler, device=None, use_ddp=False, ddp_seed=0,
; batch_size=1, drop_last=False, shuffle=False, use_prefetch_thread=None,
; use_alternate_streams=None, pin_prefetcher=None, use_uva=False, gpu_cache=None, **kwargs):
; its positional parameters are not DataLoader's; batch_size, drop_last and shuffle build its
; own index dataset (DataLoader gets batch_size=None); pin_prefetcher becomes pin_memory.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee
    "dgl.dataloading.DataLoader" "dgl.dataloading.dataloader.DataLoader")
  (#set! dl.entry "dgl.dataloading.DataLoader")
  (#set! dl.kind "class")
  (#set! dl.positional "")
  (#set! dl.keywords "sampler num_workers timeout worker_init_fn multiprocessing_context generator prefetch_factor persistent_workers pin_memory_device in_order")
  (#set! dl.rename.pin_prefetcher "pin_memory")
  (#set! dl.default.batch_size "None"))

; GraphDataLoader(dataset, collate_fn=None, use_ddp=False, ddp_seed=0, **kwargs): every other
; keyword reaches DataLoader (the collator's own options aside).
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee
    "dgl.dataloading.GraphDataLoader" "dgl.dataloading.dataloader.GraphDataLoader")
  (#set! dl.entry "dgl.dataloading.GraphDataLoader")
  (#set! dl.kind "class")
  (#set! dl.positional "dataset collate_fn")
  (#set! dl.keywords "all"))
