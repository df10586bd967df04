"""set_start_method called when the context is already set (twice, or at import time)."""
import torch.multiprocessing as mp

if __name__ == "__main__":
    mp.set_start_method("spawn")
    mp.set_start_method("forkserver")
