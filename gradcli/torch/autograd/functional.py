"""torch.autograd.functional, gradcli's: jacobian, hessian, vjp, jvp, vhp, hvp."""

from .._bridge import namespace

__getattr__ = namespace("torch.autograd.functional")
