"""torch.autograd, gradcli's: backward, grad, Function, Variable and the submodules."""

from .._bridge import namespace
from . import forward_ad, functional, graph

__getattr__ = namespace("torch.autograd")
__all__ = ["forward_ad", "functional", "graph"]
