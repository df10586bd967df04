"""Spawn re-imports the main module in every worker: without a main guard the loop runs there."""
import torch
from torch.utils.data import DataLoader, TensorDataset

data = TensorDataset(torch.arange(16.0))
loader = DataLoader(data, batch_size=4, num_workers=2, multiprocessing_context="spawn")
for batch in loader:
    print(batch)
