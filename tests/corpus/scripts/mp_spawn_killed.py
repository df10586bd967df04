"""torch.multiprocessing.spawn with a child that is killed (as the OOM killer does)."""
import os
import signal

import torch.multiprocessing as mp


def train(rank):
    if rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    mp.spawn(train, nprocs=2)
