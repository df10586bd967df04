"""A dataset that returns None for a sample: the default collate_fn rejects the type."""
import torch
from torch.utils.data import DataLoader, Dataset


class Sometimes(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return None if i == 0 else torch.zeros(2)


if __name__ == "__main__":
    for batch in DataLoader(Sometimes(), batch_size=4, num_workers=2):
        pass
