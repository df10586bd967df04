"""Workers started by fork from a parent that holds a large private writable mapping.

Run where the kernel cannot promise the memory of a second copy (a tight `ulimit -v`,
vm.overcommit_memory=2, or a memory cgroup near its limit).
"""
import sys

import numpy
import torch
from torch.utils.data import DataLoader, Dataset


class Small(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.zeros(4)


if __name__ == "__main__":
    held = numpy.ones(int(sys.argv[1]) << 20, dtype=numpy.uint8) if len(sys.argv) > 1 else None
    for batch in DataLoader(Small(), batch_size=4, num_workers=4):
        pass
