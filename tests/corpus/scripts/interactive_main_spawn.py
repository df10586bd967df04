# A notebook's cells typed into an interactive `__main__` (`python -i < this file`, the same
# `__main__` a Jupyter kernel runs cells in: no file behind it). The dataset class lives in
# that `__main__`, which spawned workers cannot import, so every worker fails to unpickle it.
# Written for the interactive prompt: no blank line inside a block, one after each.
import torch
from torch.utils.data import DataLoader, Dataset

class Squares(Dataset):
    def __len__(self):
        return 8
    def __getitem__(self, i):
        return torch.tensor([i * i])

loader = DataLoader(Squares(), batch_size=2, num_workers=2, multiprocessing_context="spawn")
for batch in loader:
    print(batch)

