"""torch.nn.Parameter, gradcli's: a Tensor subclass, so isinstance(p, nn.Parameter) and
type(p).__name__ are torch's; a module registers one in __setattr__."""

from __future__ import annotations

from typing import Any

from .. import _bridge
from .._tensor import Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter (requires grad unless told otherwise)."""

    __slots__ = ()
    __module__ = "torch.nn.parameter"

    def __new__(cls, data: Any = None, requires_grad: bool = True) -> Any:
        return _bridge.call_value(_bridge.module_function("torch.nn", "Parameter"), (data, requires_grad), {})


_bridge.PUBLIC_TENSOR[1:2] = [Parameter]
