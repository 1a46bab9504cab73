"""torch.autograd, gradcli's: backward, grad, Function, Variable and the submodules."""

from .._bridge import namespace
from . import forward_ad, functional, graph
from .function import Function

__getattr__ = namespace("torch.autograd")
__all__ = ["Function", "forward_ad", "functional", "graph"]
