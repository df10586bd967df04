# The interactive `__main__` failure without PyTorch, for Python versions the PyTorch
# environment does not have: a class typed at the prompt, sent to a spawned process.
# `python3.13 -q -i < this file`. Written for the interactive prompt.
import multiprocessing as mp

class Squares:
    pass

p = mp.get_context("spawn").Process(target=print, args=(Squares(),)); p.start(); p.join()

