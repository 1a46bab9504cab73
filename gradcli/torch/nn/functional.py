"""torch.nn.functional, gradcli's: torch's functional layers, losses and activations."""

from .._bridge import namespace

__getattr__ = namespace("torch.nn.functional")
