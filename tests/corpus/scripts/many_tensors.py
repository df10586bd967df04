"""Batches made of many small tensors: each shared tensor costs a file descriptor in transit.

Run under a low open-file limit (`ulimit -n 128`). With the argument `file_system` the script
switches to the file_system sharing strategy, whose shared-memory files are opened by name.
"""
import sys

import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset


class ManySmall(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return [torch.full((2,), float(i)) for _ in range(64)]


if __name__ == "__main__":
    if len(sys.argv) > 1:
        mp.set_sharing_strategy(sys.argv[1])
    kept = []
    for batch in DataLoader(ManySmall(), batch_size=1, num_workers=2, prefetch_factor=4):
        kept.append(batch)  # holding batches keeps their descriptors open
    print("done", len(kept))
