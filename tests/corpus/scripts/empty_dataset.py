"""An empty dataset with shuffle=True: RandomSampler refuses num_samples=0 at construction."""
from torch.utils.data import DataLoader, Dataset


class Empty(Dataset):
    """A dataset whose file listing found nothing (a wrong path, an unmounted volume)."""

    def __init__(self):
        self.files = []

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        return self.files[i]


if __name__ == "__main__":
    loader = DataLoader(Empty(), batch_size=4, shuffle=True, num_workers=2)
    for batch in loader:
        pass
