"""Not a data-loading failure: a checkpoint of another model."""
import torch
from torch import nn

if __name__ == "__main__":
    saved = nn.Sequential(nn.Linear(10, 5), nn.ReLU(), nn.Linear(5, 2)).state_dict()
    nn.Sequential(nn.Linear(10, 8), nn.ReLU(), nn.Linear(8, 2)).load_state_dict(saved)
