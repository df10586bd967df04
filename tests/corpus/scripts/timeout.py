"""A worker slower than the loader's timeout."""
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Slow(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        time.sleep(5)
        return torch.zeros(2)


if __name__ == "__main__":
    for batch in DataLoader(Slow(), batch_size=2, num_workers=1, timeout=1):
        pass
