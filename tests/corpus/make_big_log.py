"""Writes a large training log for the flat-memory check of `dldoctor explain`.

    python3 tests/corpus/make_big_log.py OUT.log SIZE_MB

Noise lines (progress, losses, ANSI colours, tqdm redraws with carriage returns) with every
recorded output of tests/corpus mixed in, and the bus-error output at the very end, so the
expected top finding is pytorch/dataloader-worker-bus-error-shm.
"""
import glob
import os
import sys

out, size_mb = sys.argv[1], int(sys.argv[2])
here = os.path.dirname(os.path.abspath(__file__))
outputs = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(here, "*.txt")))]
last = open(os.path.join(here, "worker-sigbus.txt"), "rb").read()
target = size_mb * 1024 * 1024
written = 0
step = 0
with open(out, "wb") as f:
    while written < target - len(last):
        block = []
        for _ in range(200):
            step += 1
            block.append(b"\x1b[32mINFO\x1b[0m epoch %d step %d loss=%.4f lr=0.001\n" % (step // 1000, step, 1.0 / step))
            block.append(b"Epoch %d: %3d%%|####      | %d/1000 [00:01<00:02, 9.5it/s]\r" % (step // 1000, step % 100, step % 1000))
        block.append(outputs[step % len(outputs)])
        data = b"".join(block)
        f.write(data)
        written += len(data)
    f.write(last)
