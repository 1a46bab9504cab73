"""torch.func, gradcli's: grad, vjp, jacrev, jacfwd, hessian, vmap of a script's functions."""

from ._bridge import namespace

__getattr__ = namespace("torch.func")
