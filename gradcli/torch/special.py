"""torch.special, gradcli's: special functions."""

from ._bridge import namespace

__getattr__ = namespace("torch.special")
