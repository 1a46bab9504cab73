"""torch.backends, gradcli's: no accelerator backends."""

from .._bridge import namespace
from . import mps

__getattr__ = namespace("torch.backends")
__all__ = ["mps"]
