"""A quick experiment script: spawn start method, but the loop runs at module level.

Every spawned worker re-imports this file, reaches the DataLoader again and fails with
"An attempt has been made to start a new process before the current process has finished
its bootstrapping phase".
"""

import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset

mp.set_start_method("spawn")

features = torch.randn(10_000, 32)
labels = torch.randint(0, 10, (10_000,))
dataset = TensorDataset(features, labels)

loader = DataLoader(
    dataset,
    batch_size=64,
    shuffle=True,
    num_workers=4,
    collate_fn=lambda batch: torch.utils.data.default_collate(batch),
)

model = torch.nn.Linear(32, 10)
optimizer = torch.optim.Adam(model.parameters())
for x, y in loader:
    loss = torch.nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
