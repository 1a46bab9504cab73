"""torch.nn's layers and losses (Linear, Conv2d, ReLU, MSELoss, ...), each a real subclass of
Module, built from the `run` interpreter's layer records (script/nn_modules.py's LAYERS: the
constructor's signature, parameters drawn as torch draws them, forward in F.* calls, repr).

A layer keeps the interpreter's instance (`_layer`) beside its own tables: it hands the
interpreter its current parameters, buffers, mode and options before each forward and
repr, and takes back the buffers a forward replaced (BatchNorm's counter)."""

from __future__ import annotations

from typing import Any

from ....script.nn_modules import LAYERS
from ....script.torch_api import NN_CLASSES
from ..._bridge import call, call_raw, here, unwrap, wrap
from .module import Module

CONTAINERS = ("Module", "Sequential", "ModuleList", "ModuleDict")


class _Layer(Module):
    """One of torch's own layers (see the module's docstring)."""

    _kind = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        cls = NN_CLASSES[self._kind]
        given, options = unwrap(list(args)), unwrap(kwargs)
        layer = call_raw(lambda s: s.make_layer(cls, given, options, here()))
        object.__setattr__(self, "_layer", layer)
        for name, value in layer.parameters.items():
            self._parameters[name] = wrap(value)
        for name, value in layer.buffers.items():
            self._buffers[name] = wrap(value)
        for name, value in layer.attrs.items():
            object.__setattr__(self, name, wrap(value))

    def _handed_over(self) -> Any:
        """The interpreter's instance, with this module's current state."""
        layer = self.__dict__["_layer"]
        layer.training = self.training
        layer.parameters = {k: unwrap(v) for k, v in self._parameters.items()}
        layer.buffers = {k: unwrap(v) for k, v in self._buffers.items()}
        for key in layer.config:
            if key in self.__dict__:
                layer.config[key] = unwrap(self.__dict__[key])
        return layer

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        layer = self._handed_over()
        given, options = unwrap(list(args)), unwrap(kwargs)
        result = call(lambda s: s.layer_forward(layer, given, options, here()))
        for key, value in layer.buffers.items():
            if unwrap(self._buffers.get(key)) is not value:
                self._buffers[key] = wrap(value)
        return result

    def extra_repr(self) -> str:
        layer = self._handed_over()
        return call(lambda s: s.extra_repr(layer))


def _layer_class(kind: str) -> type:
    cls = type(kind, (_Layer,), {"_kind": kind, "__module__": LAYERS[kind].module, "__qualname__": kind})
    cls.__doc__ = f"torch.nn.{kind}, from gradcli's record of it."
    return cls


LAYER_CLASSES = {kind: _layer_class(kind) for kind in LAYERS if kind not in CONTAINERS}
