"""Not a data-loading failure: a misspelt import."""
import torch
from torch.utils.data import DataLoder  # noqa: F401
