import torch.multiprocessing as mp
from torch.utils.data import DataLoader as DL

mp.set_start_method("spawn")
kwargs = {"num_workers": 0, "timeout": 5}
if True:
    kwargs.update({"prefetch_factor": 2})
loader = DL([1, 2], multiprocessing_context="fork_server", sampler=None, shuffle=True, **kwargs)
next(iter(loader))
