# %%
import torch
from torch.utils.data import DataLoader, Dataset

# %%
class Squares(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return torch.tensor([i * i]).cuda()

# %%
def main():
    loader = DataLoader(Squares(), batch_size=8, num_workers=16, pin_memory=True,
                        collate_fn=lambda b: torch.stack(b), prefetch_factor=2)
    for batch in loader:
        print(batch)

# %%
main()
