"""A Slurm job script: workers sized from the machine, and the sharing strategy changed after
"received 0 items of ancdata" errors.

os.cpu_count() counts every CPU of the node, not the few this job was given; the file_system
strategy leaks /dev/shm files whenever a worker dies.
"""

import os

import torch
import torch.multiprocessing
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

torch.multiprocessing.set_sharing_strategy("file_system")


def main():
    dataset = datasets.CIFAR10(
        root=os.environ.get("DATA_DIR", "data"),
        train=True,
        download=False,
        transform=transforms.ToTensor(),
    )
    loader = DataLoader(
        dataset,
        batch_size=128,
        shuffle=True,
        num_workers=os.cpu_count(),
        multiprocessing_context="forkserver",
    )
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 32 * 32, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for images, labels in loader:
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
