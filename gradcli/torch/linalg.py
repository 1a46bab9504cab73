"""torch.linalg, gradcli's: norms and products."""

from ._bridge import namespace

__getattr__ = namespace("torch.linalg")
