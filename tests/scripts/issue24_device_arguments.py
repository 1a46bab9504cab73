"""device= given something that is not a device is torch's TypeError (issue 24)."""

import torch
x = torch.ones(2)
for f in [lambda: torch.zeros_like(x, device=1.5), lambda: torch.zeros(2, device=x), lambda: torch.ones(2, device=True), lambda: torch.zeros(2, device="cpu")]:
    try:
        print(f())
    except TypeError as e:
        print("TypeError")
