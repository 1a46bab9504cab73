# Modelled on the input checks of torch.nn tutorials' modules (raise in a helper, except, a bare raise, an abstract forward)
import torch
def check(x):
    if x.dim() != 2:
        raise ValueError(f"expected 2D input, got {x.dim()}D")
    return x.sum()
try:
    check(torch.ones(3))
except ValueError as e:
    print("caught:", e)
try:
    raise KeyError("k")
except KeyError as e:
    print("key", e)
try:
    try:
        raise NotImplementedError
    except NotImplementedError:
        print("inner")
        raise
except Exception as e:
    print("outer", repr(str(e)))
class Base(torch.nn.Module):
    def forward(self, x):
        raise NotImplementedError("subclasses define forward")
try:
    Base()(torch.ones(1))
except NotImplementedError as e:
    print("NotImplementedError", e)
try:
    raise RuntimeError("no") from None
except RuntimeError as e:
    print(e)
print(check(torch.ones(2, 2)))
raise NotImplementedError
