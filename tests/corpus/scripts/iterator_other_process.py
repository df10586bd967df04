"""A DataLoader iterator inherited by a forked process is cleaned up there, where its workers
are not children: multiprocessing refuses to test them."""
import multiprocessing

import torch
from torch.utils.data import DataLoader, TensorDataset

data = TensorDataset(torch.arange(16.0))
it = None


def child():
    global it
    del it  # the last reference: __del__ shuts down workers this process did not start


if __name__ == "__main__":
    it = iter(DataLoader(data, batch_size=4, num_workers=2))
    next(it)
    p = multiprocessing.get_context("fork").Process(target=child)
    p.start()
    p.join()
