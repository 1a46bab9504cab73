"""torch.nn.utils, gradcli's: gradient clipping (clip_grad.py); the rest of torch's utils
(rnn, parametrize, prune, ...) is not here yet and says so."""

from ..._bridge import namespace
from . import clip_grad
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm

__getattr__ = namespace("torch.nn.utils")
__all__ = ["clip_grad", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]
