"""A dataset class defined inside a function cannot be pickled for spawned workers."""
import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset


def main():
    class Local(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            return torch.tensor([i])

    for batch in DataLoader(Local(), batch_size=2, num_workers=2):
        print(batch)


if __name__ == "__main__":
    mp.set_start_method("spawn")
    main()
