"""torch.optim, gradcli's: torch's optimisers over a script's parameters (optimizer.py) and the
learning-rate schedulers (lr_scheduler.py)."""

from .._bridge import namespace
from . import lr_scheduler
from .optimizer import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop

__getattr__ = namespace("torch.optim")  # the names not defined here (`from torch.optim import X` asks it)


__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
