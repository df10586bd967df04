"""An ordinary bug in __getitem__, raised in a worker and re-raised in the main process."""
import torch
from torch.utils.data import DataLoader, Dataset


class Labels(Dataset):
    def __init__(self):
        self.labels = {i: i % 3 for i in range(7)}

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor(self.labels[i])


if __name__ == "__main__":
    for batch in DataLoader(Labels(), batch_size=4, num_workers=2):
        pass
