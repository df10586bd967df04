"""A dataset holding an object pickle cannot copy, under the spawn start method.

    python spawn_pickle.py module|lock|h5py
"""
import sys
import threading

import numpy
import torch
from torch.utils.data import DataLoader, Dataset


class Holding(Dataset):
    def __init__(self, kind):
        if kind == "module":
            self.backend = numpy  # a module object
        elif kind == "lock":
            self.lock = threading.Lock()
        elif kind == "h5py":
            import h5py

            self.file = h5py.File("/tmp/dldoctor-spawn-pickle.h5", "w")  # an open HDF5 file
            self.file.create_dataset("x", data=numpy.zeros((8, 4)))

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.zeros(4)


if __name__ == "__main__":
    loader = DataLoader(
        Holding(sys.argv[1]), batch_size=4, num_workers=2, multiprocessing_context="spawn"
    )
    for batch in loader:
        pass
