"""Keywords torch refuses on the calls gradcli answers itself are refused in torch's words (issue 24)."""

import torch

x = torch.ones(2, requires_grad=True)
for f in [
    lambda: x.dim(dtype=1),
    lambda: x.tolist(dim=0),
    lambda: x.numpy(dtype=1),
    lambda: torch.is_grad_enabled(a=1),
    lambda: torch.numel(x, dim=0),
    lambda: x.detach().numpy(force=True),
    lambda: x.requires_grad_(requires_grad=True).requires_grad,
]:
    try:
        print(f())
    except TypeError as e:
        print("TypeError", e)
