"""torch.autograd.graph, gradcli's: saved_tensors_hooks."""

from .._bridge import namespace

__getattr__ = namespace("torch.autograd.graph")
