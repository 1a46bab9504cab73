"""torch.cuda, gradcli's: gradcli runs on the CPU: is_available() is False."""

from ._bridge import namespace

__getattr__ = namespace("torch.cuda")
