"""Not a data-loading failure: a model whose input size does not match the batches."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    model = nn.Linear(10, 5)
    loader = DataLoader(TensorDataset(torch.zeros(16, 7)), batch_size=4, num_workers=2)
    for (x,) in loader:
        model(x)
