"""A DataLoader worker that exits with a non-zero status (a library calling sys.exit/os._exit)."""
import os

import torch
from torch.utils.data import DataLoader, Dataset


class Exiting(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        if i == 5:
            os._exit(3)
        return torch.zeros(4)


if __name__ == "__main__":
    for batch in DataLoader(Exiting(), batch_size=2, num_workers=2):
        pass
