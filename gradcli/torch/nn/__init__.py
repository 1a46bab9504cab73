"""torch.nn, gradcli's: layers, losses, containers and Parameter."""

from .._bridge import namespace
from . import functional, init

__getattr__ = namespace("torch.nn")
__all__ = ["functional", "init"]
