"""torch.optim, gradcli's: torch's optimisers over a script's parameters."""

from .._bridge import namespace
from . import lr_scheduler

__getattr__ = namespace("torch.optim")
__all__ = ["lr_scheduler"]
