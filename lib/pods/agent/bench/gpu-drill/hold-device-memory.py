#!/usr/bin/env python3
"""Holds device memory as an engine does: this process's whole footprint (CUDA context included) is `--share` of
the device, as vLLM sizes itself by GPU_MEMORY_UTILIZATION. Holds until it is signalled; prints what it holds."""
import argparse
import signal
import sys
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--share", type=float, required=True)
share = parser.parse_args().share
if not 0 < share <= 1:
    sys.exit(f"hold-device-memory: --share must be in (0, 1], got {share}")

torch.cuda.init()
free_before, total = torch.cuda.mem_get_info()
torch.empty(1, device="cuda")  # the context exists once something is allocated
free_after, _ = torch.cuda.mem_get_info()
context = free_before - free_after
want = int(share * total) - (total - free_before) - context
if want <= 0:
    sys.exit(f"hold-device-memory: the device already holds more than {share} of {total >> 20} MiB")
block = torch.empty(want, dtype=torch.uint8, device="cuda")
block.fill_(1)
torch.cuda.synchronize()
used = total - torch.cuda.mem_get_info()[0]
print(f"hold-device-memory: holding {want >> 20} MiB; device {used >> 20} of {total >> 20} MiB in use", flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
while True:
    time.sleep(3600)
