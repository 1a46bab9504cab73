"""torch.utils, gradcli's: the data loading utilities."""

from .._bridge import namespace
from . import data

__getattr__ = namespace("torch.utils")
__all__ = ["data"]
