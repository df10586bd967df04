"""Batches larger than /dev/shm. Run with a tiny /dev/shm in a private mount namespace:
unshare -m sh -c 'mount -t tmpfs -o size=1M tmpfs /dev/shm && python big_batches.py'
"""
import sys

import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset


class Big(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.ones(1024, 1024)  # 4 MiB per sample


if __name__ == "__main__":
    if len(sys.argv) > 1:
        mp.set_sharing_strategy(sys.argv[1])
    for batch in DataLoader(Big(), batch_size=2, num_workers=2):
        print(batch.shape, flush=True)
