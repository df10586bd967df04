; PyTorch Geometric 2.9.0 (pyg-team/pytorch_geometric at 5c6461b, torch_geometric/loader/).
; Every class below is a torch.utils.data.DataLoader subclass that forwards its **kwargs
; (num_workers, pin_memory, persistent_workers, prefetch_factor, ...) to DataLoader and sets
; collate_fn itself.

; DataLoader(dataset, batch_size=1, shuffle=False, follow_batch=None, exclude_keys=None,
; **kwargs); DataListLoader and DenseDataLoader(dataset, batch_size=1, shuffle=False,
; **kwargs). torch_geometric.data.DataLoader is the same loader in PyG 1.x.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee
    "torch_geometric.loader.DataLoader" "torch_geometric.loader.dataloader.DataLoader"
    "torch_geometric.data.DataLoader" "torch_geometric.data.dataloader.DataLoader"
    "torch_geometric.loader.DataListLoader" "torch_geometric.loader.data_list_loader.DataListLoader"
    "torch_geometric.data.DataListLoader"
    "torch_geometric.loader.DenseDataLoader" "torch_geometric.loader.dense_data_loader.DenseDataLoader"
    "torch_geometric.data.DenseDataLoader")
  (#set! dl.entry "torch_geometric.loader.DataLoader")
  (#set! dl.kind "class")
  (#set! dl.positional "dataset batch_size shuffle")
  (#set! dl.keywords "all"))

; Loaders that build their own dataset of indices from a graph: NeighborLoader(data,
; num_neighbors, input_nodes=None, ...), LinkNeighborLoader(data, num_neighbors,
; edge_label_index=None, ...), HGTLoader(data, num_samples, input_nodes, ...),
; NodeLoader(data, node_sampler, ...), LinkLoader(data, link_sampler, ...),
; ClusterLoader(cluster_data, **kwargs), ShaDowKHopSampler(data, depth, num_neighbors, ...),
; RandomNodeLoader(data, num_parts, **kwargs), ZipLoader(loaders, ...),
; NeighborSampler(edge_index, sizes, ...): their positional parameters are not DataLoader's.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee
    "torch_geometric.loader.NeighborLoader" "torch_geometric.loader.neighbor_loader.NeighborLoader"
    "torch_geometric.loader.LinkNeighborLoader" "torch_geometric.loader.link_neighbor_loader.LinkNeighborLoader"
    "torch_geometric.loader.HGTLoader" "torch_geometric.loader.hgt_loader.HGTLoader"
    "torch_geometric.loader.NodeLoader" "torch_geometric.loader.node_loader.NodeLoader"
    "torch_geometric.loader.LinkLoader" "torch_geometric.loader.link_loader.LinkLoader"
    "torch_geometric.loader.ClusterLoader" "torch_geometric.loader.cluster.ClusterLoader"
    "torch_geometric.data.ClusterLoader"
    "torch_geometric.loader.ShaDowKHopSampler" "torch_geometric.loader.shadow.ShaDowKHopSampler"
    "torch_geometric.loader.RandomNodeLoader" "torch_geometric.loader.random_node_loader.RandomNodeLoader"
    "torch_geometric.loader.ZipLoader" "torch_geometric.loader.zip_loader.ZipLoader"
    "torch_geometric.loader.NeighborSampler" "torch_geometric.loader.neighbor_sampler.NeighborSampler"
    "torch_geometric.data.NeighborSampler")
  (#set! dl.entry "torch_geometric.loader.NeighborLoader")
  (#set! dl.kind "class")
  (#set! dl.positional "")
  (#set! dl.keywords "all"))

; GraphSAINTSampler(data, batch_size, num_steps=1, sample_coverage=0, save_dir=None,
; log=True, **kwargs) and its Node/Edge/RandomWalk subclasses: their batch_size is a number
; of nodes or edges, DataLoader gets batch_size=1.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee
    "torch_geometric.loader.GraphSAINTSampler" "torch_geometric.loader.graph_saint.GraphSAINTSampler"
    "torch_geometric.loader.GraphSAINTNodeSampler" "torch_geometric.loader.graph_saint.GraphSAINTNodeSampler"
    "torch_geometric.loader.GraphSAINTEdgeSampler" "torch_geometric.loader.graph_saint.GraphSAINTEdgeSampler"
    "torch_geometric.loader.GraphSAINTRandomWalkSampler" "torch_geometric.loader.graph_saint.GraphSAINTRandomWalkSampler"
    "torch_geometric.data.GraphSAINTNodeSampler" "torch_geometric.data.GraphSAINTEdgeSampler"
    "torch_geometric.data.GraphSAINTRandomWalkSampler")
  (#set! dl.entry "torch_geometric.loader.GraphSAINTSampler")
  (#set! dl.kind "class")
  (#set! dl.positional "")
  (#set! dl.keywords "shuffle sampler num_workers pin_memory timeout worker_init_fn multiprocessing_context generator prefetch_factor persistent_workers pin_memory_device in_order")
  (#set! dl.default.batch_size "1"))

; TemporalDataLoader(data, batch_size=1, neg_sampling_ratio=0.0, **kwargs): DataLoader gets
; batch_size=1 and shuffle=False.
((call function: (_) @callee) @loader
  (#dl-resolves-to? @callee
    "torch_geometric.loader.TemporalDataLoader" "torch_geometric.loader.temporal_dataloader.TemporalDataLoader")
  (#set! dl.entry "torch_geometric.loader.TemporalDataLoader")
  (#set! dl.kind "class")
  (#set! dl.positional "")
  (#set! dl.keywords "sampler num_workers pin_memory drop_last timeout worker_init_fn multiprocessing_context generator prefetch_factor persistent_workers pin_memory_device in_order")
  (#set! dl.default.batch_size "1")
  (#set! dl.default.shuffle "False"))
