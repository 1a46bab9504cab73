"""torch.optim.lr_scheduler, gradcli's: torch's learning-rate schedulers."""

from .._bridge import namespace

__getattr__ = namespace("torch.optim.lr_scheduler")
