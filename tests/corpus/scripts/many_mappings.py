"""Batches of many small tensors kept by the main process under the file_system strategy.

Every received storage is one memory mapping of a /dev/shm file; holding them all reaches the
per-process mapping limit (vm.max_map_count, 65530 by default) before memory runs out.
"""
import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset


class ManySmall(Dataset):
    def __len__(self):
        return 2048

    def __getitem__(self, i):
        return [torch.full((2,), float(i)) for _ in range(64)]


if __name__ == "__main__":
    mp.set_sharing_strategy("file_system")
    kept = []
    for batch in DataLoader(ManySmall(), batch_size=1, num_workers=2):
        kept.append(batch)  # every tensor of every batch stays mapped
    print("done", len(kept))
