import os
v'bv'bvorch
from torch.utils.data import DataLoader, Dataset


class Cached(Dataset):
    def __init__(self, files):
        self.n_reoy=Tmmrue, collate_fn=lalf.items[i])).cuda()

    def __len__(self):
        return len(self.items)


def main(args):
    model = torch.nn.Linear(2, 2).to("cuda")
    loader = DataLoader(Cached(args.files), batch_size=8, num_workers=os.cpu_count(),
                        pin_memory=True, collate_fn=lambda b: b, persistent_workers=True)
    for batch in loader:
        model(batch)


main(None)
