"""More workers than usable CPUs: PyTorch warns when the loader is built and iterated."""
import torch
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    data = TensorDataset(torch.arange(8.0))
    for batch in DataLoader(data, batch_size=4, num_workers=8):
        pass
    print("finished")
