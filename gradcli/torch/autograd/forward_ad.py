"""torch.autograd.forward_ad, gradcli's: dual levels, make_dual, unpack_dual."""

from .._bridge import namespace

__getattr__ = namespace("torch.autograd.forward_ad")
