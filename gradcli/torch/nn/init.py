"""torch.nn.init, gradcli's: parameter initialisations drawn from torch's generator."""

from .._bridge import namespace

__getattr__ = namespace("torch.nn.init")
