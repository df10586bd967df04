"""A dataset that moves samples to the GPU inside __getitem__, loaded by forked workers.

On Linux (before Python 3.14) the workers start by fork, and a forked child cannot use CUDA:
"RuntimeError: Cannot re-initialize CUDA in forked subprocess".
"""

import torch
from torch.utils.data import DataLoader, Dataset


class GpuFeatures(Dataset):
    def __init__(self, n):
        self.features = torch.randn(n, 128)

    def __len__(self):
        return len(self.features)

    def __getitem__(self, index):
        return self.features[index].cuda()


def main():
    loader = DataLoader(
        GpuFeatures(50_000),
        batch_size=256,
        num_workers=4,
        pin_memory=True,
    )
    model = torch.nn.Linear(128, 1).cuda()
    for batch in loader:
        model(batch).sum().backward()


if __name__ == "__main__":
    main()
