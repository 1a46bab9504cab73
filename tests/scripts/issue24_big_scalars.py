"""A Python int too big for 64 bits, as an operand of tensor arithmetic, raises as torch raises (issue 24)."""

import torch

x = torch.ones(3)
for f in [lambda: x + 2**70, lambda: 2**70 * x, lambda: x - 10**30, lambda: x * 2**63, lambda: x / (-2**63 - 1)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
