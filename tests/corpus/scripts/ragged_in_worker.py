"""Samples of unequal size collated inside a worker, the larger one first.

In a worker, default_collate stacks into a shared-memory storage sized for the sum of the
samples; when the first sample is the larger one the storage is too small for
`len(batch) x first sample` and resizing it fails before torch.stack can name the sizes.
"""
import torch
from torch.utils.data import DataLoader, Dataset


class Ragged(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.zeros(4 - i % 2)


if __name__ == "__main__":
    for batch in DataLoader(Ragged(), batch_size=4, num_workers=2):
        pass
