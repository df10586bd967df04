"""A DataLoader worker that kills itself with the signal named on the command line.

SIGBUS is what a worker gets when /dev/shm runs out while it writes a batch; SIGKILL is what the
kernel's OOM killer sends; SIGSEGV and SIGABRT stand for native crashes.
"""
import os
import signal
import sys

import torch
from torch.utils.data import DataLoader, Dataset

SIG = getattr(signal, sys.argv[1] if len(sys.argv) > 1 else "SIGBUS")


class Crashing(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        if i == 5:
            os.kill(os.getpid(), SIG)
        return torch.zeros(4)


def main():
    loader = DataLoader(Crashing(), batch_size=2, num_workers=2)
    for step, batch in enumerate(loader):
        print("step", step, tuple(batch.shape), flush=True)


if __name__ == "__main__":
    main()
