"""Each DataLoader argument check, chosen by name on the command line."""
import sys

import torch
from torch.utils.data import DataLoader, RandomSampler, BatchSampler, TensorDataset

data = TensorDataset(torch.arange(16.0))
CASES = {
    "prefetch_factor": lambda: DataLoader(data, num_workers=0, prefetch_factor=2),
    "persistent_workers": lambda: DataLoader(data, num_workers=0, persistent_workers=True),
    "mp_context_without_workers": lambda: DataLoader(
        data, num_workers=0, multiprocessing_context="spawn"
    ),
    "invalid_mp_context": lambda: DataLoader(data, num_workers=2, multiprocessing_context="fork_server"),
    "negative_num_workers": lambda: DataLoader(data, num_workers=-1),
    "negative_timeout": lambda: DataLoader(data, timeout=-1),
    "timeout_without_workers": lambda: next(iter(DataLoader(data, num_workers=0, timeout=5))),
    "sampler_shuffle": lambda: DataLoader(data, sampler=RandomSampler(data), shuffle=True),
    "batch_sampler": lambda: DataLoader(
        data, batch_size=4, batch_sampler=BatchSampler(RandomSampler(data), 4, False)
    ),
    "batch_size_none_drop_last": lambda: DataLoader(data, batch_size=None, drop_last=True),
}


def main():
    CASES[sys.argv[1]]()


if __name__ == "__main__":
    main()
