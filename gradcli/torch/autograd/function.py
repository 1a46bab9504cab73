"""torch.autograd.Function, gradcli's: a real class whose subclasses' static forward and
backward the engine runs as one node (`MyFnBackward`), the interpreter's record of a custom
Function (script/classes.py's apply_custom) with Python's own functions in it."""

from __future__ import annotations

from typing import Any

from .._bridge import call, here, unwrap


class Function:
    """Base class of custom autograd operations: `MyFn.apply(x)` runs `forward(ctx, x)` without
    recording, then records one node whose backward is `backward(ctx, grad)`."""

    __module__ = "torch.autograd.function"

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use it "
            "with backward mode AD."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        backward = cls.backward if cls.backward is not Function.backward else None
        given, options = unwrap(list(args)), unwrap(kwargs)
        return call(lambda s: s.apply_custom(cls.__name__, cls.forward, backward, given, options, here()))
