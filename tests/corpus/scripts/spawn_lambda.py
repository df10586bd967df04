"""Spawned workers must pickle collate_fn; a lambda defined in a function cannot be pickled."""
import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    data = TensorDataset(torch.arange(16.0))
    loader = DataLoader(
        data,
        batch_size=4,
        num_workers=2,
        multiprocessing_context="spawn",
        collate_fn=lambda batch: torch.stack([b[0] for b in batch]),
    )
    for batch in loader:
        print(batch)


if __name__ == "__main__":
    main()
