"""How torch's values print (str, repr) and name their class, their attributes and methods, and
the few builtins Python asks a tensor for (len, int, float, abs)."""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from . import runtime
from .classes import CLASS_OBJECTS, ClassValue, Context, Instance
from .forward_ad import UnpackedDual
from .nn_modules import IncompatibleKeys
from .random_api import GENERATOR_METHODS as TORCH_GENERATOR_METHODS
from .random_api import RANDOM_METHODS, TorchGenerator
from .runtime import ScriptError, ScriptRuntimeError, Tensor, source_position
from .saved_tensors import RawSaved
from .tensor_repr import grad_fn_repr
from .values import (
    AccumulateGrad,
    Device,
    DType,
    Function,
    HookHandle,
    Method,
    Module,
    Picked,
    Size,
    TypeOf,
    is_parameter,
    next_functions,
    show,
)


class Builtins:
    """Mixed into Interpreter: builtins, Python values' methods and attributes, str/repr."""

    # -- text -------------------------------------------------------------------

    def text(self, value: Any) -> str:
        if isinstance(value, str):
            return value
        if isinstance(value, (Device, np.ndarray, np.generic, np.dtype)):
            return str(value)  # print(t.numpy()) shows NumPy's str: [ 0.5  -1.25  3.  ]
        return self.repr(value)

    def repr(self, value: Any) -> str:
        return self.shown(value, set())

    def shown(self, value: Any, path: set[int]) -> str:
        """repr of one of torch's values (Python's own print as Python prints them); `path` is
        kept for FuncAPI's override."""
        if isinstance(value, Tensor):
            return show(value)
        if isinstance(value, IncompatibleKeys):
            return repr(value)
        if isinstance(value, list):
            return "[" + ", ".join(self.shown(v, path) for v in value) + "]"
        if isinstance(value, Size):
            return repr(value)
        if isinstance(value, UnpackedDual):
            return f"UnpackedDualTensor(primal={self.shown(value.primal, path)}, tangent={self.shown(value.tangent, path)})"
        if isinstance(value, Picked):
            return (
                f"torch.return_types.{value.kind}(\nvalues={self.shown(value.values, path)},\n"
                f"indices={self.shown(value.indices, path)})"
            )
        if isinstance(value, tuple):
            inner = ", ".join(self.shown(v, path) for v in value)
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        if isinstance(value, runtime.Fn):  # a custom Function's node is a class of torch.autograd.function
            custom = "torch.autograd.function." if hasattr(value, "context") else ""
            return grad_fn_repr(custom + value.name)
        if isinstance(value, AccumulateGrad):
            return grad_fn_repr("AccumulateGrad")
        if isinstance(
            value,
            (
                str,
                int,
                float,
                bool,
                range,
                DType,
                Device,
                np.ndarray,
                np.generic,
                np.dtype,
                TypeOf,
            ),
        ):
            return repr(value)
        if value is None:
            return "None"
        if isinstance(value, HookHandle):
            return f"<torch.utils.hooks.RemovableHandle object at {hex(id(value))}>"
        if isinstance(value, (Function, Method)):
            return f"<built-in method {value.name}>"
        return f"<{type(value).__name__}>"

    def type_name(self, value: Any) -> str:
        if isinstance(value, Tensor):
            return "Tensor"
        if isinstance(value, TypeOf):
            return "type"
        if value is None:
            return "NoneType"
        if isinstance(value, (int, float, str, list, tuple, bool)):
            return type(value).__name__
        return type(value).__name__.lower()

    # -- attributes ---------------------------------------------------------------

    def type_of(self, value: Any) -> Any:
        """type(value), also read as value.__class__ (d2l's `layer.__class__.__name__`)."""
        if isinstance(value, Instance) and not isinstance(value, Context):
            return value.cls  # a class of the script or of torch.nn: `type(m) == nn.Linear` holds
        return TypeOf(self.class_name(value))

    def attribute(self, owner: Any, name: str, node: ast.AST) -> Any:
        if name == "__class__":
            return self.type_of(owner)
        if name == "__name__":  # a class's or a function's name, nothing else
            if isinstance(owner, Function):
                return owner.name
            if isinstance(getattr(owner, "node", None), ast.FunctionDef):  # torch.func's functions
                return owner.node.name
            raise ScriptRuntimeError(
                f"'{self.type_name(owner)}' object has no attribute '__name__'", "AttributeError"
            )
        if isinstance(owner, CLASS_OBJECTS):
            return self.object_attribute(owner, name, node)
        if isinstance(owner, Picked) and name in ("values", "indices"):
            return getattr(owner, name)
        if isinstance(owner, Device) and name in ("type", "index"):
            return owner.kind if name == "type" else owner.index
        if isinstance(owner, UnpackedDual) and name in ("primal", "tangent"):
            return getattr(owner, name)
        if isinstance(owner, Module):
            return self.module_attribute(owner, name, node)
        if isinstance(owner, Tensor) and (
            name in RANDOM_METHODS or name == "register_post_accumulate_grad_hook"
        ):
            return Method(owner, name)  # random_api's draws; autograd_api's hook
        if isinstance(owner, Tensor):
            return self.tensor_attribute(owner, name, node)
        if isinstance(owner, RawSaved) and name == "register_hooks":
            return Method(owner, name)
        if isinstance(owner, (runtime.Fn, AccumulateGrad)):
            if name == "name":
                return Method(owner, name)
            if name == "next_functions":
                return next_functions(owner)
            if name == "variable" and isinstance(owner, AccumulateGrad):
                return owner.variable
            if name.startswith(("_saved_", "_raw_saved_")) and isinstance(owner, runtime.Fn):
                return self.saved_attribute(owner, name, node)
            if name.startswith(("_saved_", "_raw_saved_")):  # AccumulateGrad saves nothing
                raise ScriptRuntimeError(f"'AccumulateGrad' object has no attribute '{name}'", "AttributeError")
            raise ScriptError(
                f"{source_position(node)}: grad_fn has only .name(), .next_functions, .variable and ._saved_* here"
            )
        if isinstance(owner, HookHandle) and name == "remove":
            return Method(owner, name)
        if isinstance(owner, TorchGenerator) and name in TORCH_GENERATOR_METHODS:
            return Method(owner, name)
        raise ScriptRuntimeError(
            f"'{self.class_name(owner)}' object has no attribute '{name}'", "AttributeError"
        )

    def builtin(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        """len(), int(), float() and abs() of a tensor (its __len__, __int__, __float__, __abs__),
        and len() of torch's other values."""
        if name == "len" and len(args) == 1 and isinstance(args[0], Instance):
            return self.object_length(args[0])
        value = args[0]
        if name == "len" and not isinstance(value, Tensor):
            return self.python(lambda: len(value))  # a DataLoader's batches, a Size's dims
        if name == "len":
            if not value.shape:
                raise ScriptRuntimeError("len() of a 0-d tensor", "TypeError")
            return value.shape[0]
        if name == "abs":
            return self.apply("abs", [value], {})
        if value.value.size != 1:
            raise ScriptRuntimeError("only one element tensors can be converted to Python scalars")
        return {"float": float, "int": int}[name](value.value.reshape(()).item())

    def class_name(self, value: Any) -> str:
        """type(value)'s name as Python prints it for the torch object it stands for."""
        if isinstance(value, Tensor):
            return "torch.nn.parameter.Parameter" if is_parameter(value) else "torch.Tensor"
        if isinstance(value, Size):
            return "torch.Size"
        if isinstance(value, Instance):
            return value.cls.qualified
        if isinstance(value, ClassValue):
            return "type"
        if isinstance(value, UnpackedDual):
            return "UnpackedDualTensor"
        if isinstance(value, Picked):
            return f"torch.return_types.{value.kind}"
        if isinstance(value, DType):
            return "torch.dtype"
        if isinstance(value, Device):
            return "torch.device"
        if isinstance(value, (np.ndarray, np.generic)):
            return "numpy.ndarray" if isinstance(value, np.ndarray) else f"numpy.{value.dtype.name}"
        if isinstance(value, TorchGenerator):
            return "torch._C.Generator"
        if isinstance(value, (runtime.Fn, AccumulateGrad)):
            return f"{value.name if isinstance(value, runtime.Fn) else 'AccumulateGrad'}"
        if isinstance(value, (bool, int, float, str, list, tuple, dict, set, range)) or value is None:
            return type(value).__name__
        return self.type_name(value)

    def method(self, receiver: Any, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if isinstance(receiver, Context):
            return self.context_method(receiver, name, args, kwargs)
        if isinstance(receiver, RawSaved):
            return self.raw_saved_method(receiver, name, args, kwargs, node)
        if isinstance(receiver, (runtime.Fn, AccumulateGrad)):
            if name == "name" and not args:
                if isinstance(receiver, AccumulateGrad):
                    return "torch::autograd::AccumulateGrad"
                # PyTorch's hand-written C++ nodes name themselves with their namespace
                hand_written = receiver.name in ("CopySlices", "CopyBackwards")
                return f"torch::autograd::{receiver.name}" if hand_written else receiver.name
            raise ScriptError(
                f"{source_position(node)}: grad_fn has only .name(), .next_functions, .variable and ._saved_* here"
            )
        if isinstance(receiver, TorchGenerator) and name in TORCH_GENERATOR_METHODS:
            return self.torch_generator_method(receiver, name, args, kwargs)
        if isinstance(receiver, Tensor) and name in RANDOM_METHODS:
            return self.random_method(receiver, name, args, kwargs)
        if isinstance(receiver, Tensor) and name == "register_post_accumulate_grad_hook":
            return self.register_post_accumulate_grad_hook(receiver, args, kwargs, node)
        if isinstance(receiver, Tensor) and name == "numpy" and not args and not kwargs:
            if receiver.requires_grad:
                raise ScriptRuntimeError(
                    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
                )
            return self.export(receiver)
        if isinstance(receiver, HookHandle) and name == "remove" and not args and not kwargs:
            receiver.remove()
            return None
        if isinstance(receiver, Tensor):
            return self.tensor_method(receiver, name, args, kwargs, node)
        raise ScriptRuntimeError(
            f"'{self.type_name(receiver)}' object has no attribute '{name}'", "AttributeError"
        )
