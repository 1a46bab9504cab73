"""Python's builtins and the methods of Python's own values (str, list, dict, NumPy arrays) as scripts
use them, and how every script value prints (str, repr) and names its class."""

from __future__ import annotations

import ast
import math
import re
import string
from collections import Counter
from typing import Any

import numpy as np

from .. import limits
from . import bounds, runtime
from .classes import CLASS_OBJECTS, BoundMethod, ClassValue, Context, Instance, ModuleInstance
from .forward_ad import UnpackedDual
from .nn_modules import IncompatibleKeys, StateDict
from .numpy_api import ARRAY_METHODS, GENERATOR_METHODS, ArrayFlags, NumpyGenerator, NumpyType
from .random_api import GENERATOR_METHODS as TORCH_GENERATOR_METHODS
from .random_api import RANDOM_METHODS, TorchGenerator
from .runtime import ScriptError, ScriptRuntimeError, Tensor
from .saved_tensors import RawSaved
from .tensor_repr import grad_fn_repr
from .values import (
    CONTAINERS,
    AccumulateGrad,
    Caught,
    Device,
    DType,
    Function,
    Generated,
    HookHandle,
    Iterator,
    Method,
    Module,
    Picked,
    Size,
    TypeOf,
    UserFunction,
    is_parameter,
    next_functions,
    show,
)
from .whitelist import source_position

_CLASSES = ("int", "float", "bool", "str", "list", "tuple", "dict", "set", "range")
MATH_FUNCTIONS = {
    "sqrt": math.sqrt,
    "exp": math.exp,
    "log": math.log,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "tanh": math.tanh,
    "fabs": math.fabs,
    "floor": math.floor,
    "ceil": math.ceil,
    "isclose": math.isclose,
    "log10": math.log10,
    "log2": math.log2,
    "atan": math.atan,
    "isnan": math.isnan,
    "isinf": math.isinf,
    "erf": math.erf,
    "atan2": math.atan2,
    "asin": math.asin,
    "acos": math.acos,
    "sinh": math.sinh,
    "cosh": math.cosh,
    "log1p": math.log1p,
    "expm1": math.expm1,
    "hypot": math.hypot,
}
MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau}
BUILTINS = {
    "print",
    "super",
    "str",
    "float",
    "int",
    "bool",
    "round",
    "len",
    "range",
    "abs",
    "min",
    "max",
    "sum",
    "list",
    "tuple",
    "enumerate",
    "zip",
    "isinstance",
    "repr",
    "reversed",
    "sorted",
    "any",
    "all",
    "type",
    "iter",
    "next",
    "set",
    "id",
    "map",
}
# Builtins that walk their argument whole: a range is checked against MAX_SEQUENCE first.
_WALKING_BUILTINS = frozenset(
    {"min", "max", "sum", "sorted", "list", "tuple", "set", "any", "all", "enumerate", "zip", "reversed"}
)
# Python's own methods of strings and lists that a script may call (no callables, no
# attribute walks): their results are checked against MAX_SEQUENCE like every value.
_STR_METHODS = {
    "upper", "lower", "strip", "lstrip", "rstrip", "title", "capitalize", "swapcase", "casefold",
    "isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower", "isnumeric", "isdecimal",
    "split", "rsplit", "splitlines", "replace", "find", "rfind", "index", "rindex", "count",
    "startswith", "endswith", "zfill", "center", "ljust", "rjust", "partition", "rpartition",
    "removeprefix", "removesuffix",
}  # fmt: skip
_ARRAY_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "T", "itemsize", "nbytes"})


_LIST_METHODS = {"index", "count", "insert", "pop", "remove", "reverse", "copy", "clear", "sort"}


# one printf-style conversion: %(key)s, flags, width, .precision, length modifier, type
_PERCENT_SPEC = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?[-#0 +]*(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d+))?[hlL]?"
    r"(?P<conversion>[diouxXeEfFgGcrsa%])"
)


class _Printed:
    """A script value inside %-formatting: %s shows its printed text, %r its repr."""

    def __init__(self, text: str, shown: str) -> None:
        self.text, self.shown = text, shown

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.shown


class Builtins:
    """Mixed into Interpreter: builtins, Python values' methods and attributes, str/repr."""

    # -- text -------------------------------------------------------------------

    def text(self, value: Any) -> str:
        if isinstance(value, str):
            return value
        if isinstance(value, Instance):
            text = self.protocol_text(value, "__str__")
            return self.repr(value) if text is None else text
        if isinstance(value, Caught):
            return value.message
        if isinstance(value, (Device, np.ndarray, np.generic, np.dtype)):
            return str(value)  # print(t.numpy()) shows NumPy's str: [ 0.5  -1.25  3.  ]
        return self.repr(value)

    def repr(self, value: Any) -> str:
        if isinstance(value, CONTAINERS):
            bounds.measure(value, self.line)  # the text's length and nesting, before building it
        return self.shown(value, set())

    def shown(self, value: Any, path: set[int]) -> str:
        """repr of a script value; `path` holds the containers being printed (a list that
        holds itself prints as [...], as in Python)."""
        if isinstance(value, CONTAINERS):
            if id(value) in path:
                return (
                    "[...]"
                    if isinstance(value, list)
                    else "{...}"
                    if isinstance(value, (dict, set))
                    else "(...)"
                )
            path = path | {id(value)}
        if isinstance(value, Tensor):
            return show(value)
        if isinstance(value, IncompatibleKeys):
            return repr(value)
        if isinstance(value, Counter):  # MultiStepLR's milestones, most common first as Python prints
            inner = ", ".join(f"{self.shown(k, path)}: {self.shown(v, path)}" for k, v in value.most_common())
            return f"Counter({{{inner}}})" if value else "Counter()"
        if isinstance(value, StateDict):
            inner = ", ".join(f"({self.shown(k, path)}, {self.shown(v, path)})" for k, v in value.items())
            return f"OrderedDict([{inner}])" if value else "OrderedDict()"
        if isinstance(value, CLASS_OBJECTS):
            return self.object_repr(value)
        if isinstance(value, Generated):
            return f"<generator object {value.name} at 0x7f0000000000>"
        if isinstance(value, Iterator):
            return "<list_iterator object at 0x7f0000000000>"
        if isinstance(value, list):
            return "[" + ", ".join(self.shown(v, path) for v in value) + "]"
        if isinstance(value, ArrayFlags):  # a dict to index, printed as NumPy prints it
            return value.text
        if isinstance(value, dict):
            return (
                "{"
                + ", ".join(f"{self.shown(k, path)}: {self.shown(v, path)}" for k, v in value.items())
                + "}"
            )
        if isinstance(value, set):
            return "{" + ", ".join(self.shown(v, path) for v in value) + "}" if value else "set()"
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
                NumpyType,
            ),
        ):
            return repr(value)
        if isinstance(value, (NumpyGenerator, TorchGenerator)):
            return repr(value)
        if value is None:
            return "None"
        if isinstance(value, Caught):
            return f"{value.kind}({value.message!r})" if value.message else f"{value.kind}()"
        if isinstance(value, Module):
            return f"<module '{value.name}'>"
        if isinstance(value, UserFunction):
            return f"<function {value.node.name} at 0x7f0000000000>"
        if isinstance(value, HookHandle):
            return "<torch.utils.hooks.RemovableHandle object at 0x7f0000000000>"
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
            if isinstance(owner, ClassValue):
                return owner.name
            if isinstance(owner, TypeOf):
                return owner.name.rpartition(".")[2]
            if isinstance(owner, UserFunction):
                return owner.node.name
            if isinstance(owner, Function):
                return owner.name
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
        if isinstance(owner, (list, str, Caught)) and name in ("append", "extend", "format", "join", "args"):
            if isinstance(owner, Caught) and name == "args":
                return (owner.message,)
            return Method(owner, name)
        if (
            isinstance(owner, str)
            and name in _STR_METHODS
            or isinstance(owner, list)
            and name in _LIST_METHODS
        ):
            return Method(owner, name)
        if isinstance(owner, dict) and name in ("items", "keys", "values", "get", "update"):
            return Method(owner, name)
        if isinstance(owner, (int, float)) and name in ("real", "imag"):
            return getattr(owner, name)
        if isinstance(owner, float) and name == "is_integer":
            return Method(owner, name)
        if isinstance(owner, HookHandle) and name == "remove":
            return Method(owner, name)
        if isinstance(owner, (np.ndarray, np.generic)) and name in ARRAY_METHODS:
            return Method(owner, name)  # NumPy's numbers have its arrays' methods
        if isinstance(owner, np.ndarray) and name == "flags":
            return ArrayFlags(owner)
        if isinstance(owner, (np.ndarray, np.generic)) and name in _ARRAY_ATTRIBUTES:
            return getattr(owner, name)  # NumPy's own tuple, numbers, dtype, or the transposed view
        if isinstance(owner, NumpyGenerator) and name in GENERATOR_METHODS:
            return Method(owner, name)
        if isinstance(owner, TorchGenerator) and name in TORCH_GENERATOR_METHODS:
            return Method(owner, name)
        if isinstance(owner, (str, list, dict, tuple, int, float, np.ndarray)) and hasattr(type(owner), name):
            # Python (or NumPy) has it, gradcli does not: not the script's AttributeError
            raise ScriptError(
                f"{source_position(node)}: {self.class_name(owner)}.{name} is not supported by gradcli run"
            )
        raise ScriptRuntimeError(
            f"'{self.class_name(owner)}' object has no attribute '{name}'", "AttributeError"
        )

    def builtin(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if name == "print":
            sep = kwargs.pop("sep", " ")
            end = kwargs.pop("end", "\n")
            if kwargs:
                raise ScriptError(f"{source_position(node)}: print() takes only sep= and end= here")
            sep = " " if sep is None else sep
            end = "\n" if end is None else end
            if not isinstance(sep, str) or not isinstance(end, str):
                raise ScriptRuntimeError("sep and end must be None or a string", "TypeError")
            parts, length = [], len(end)
            for a in args:  # print(*xs): the line is refused before it is built
                length += len(sep) if parts else 0
                parts.append(self.text(a))
                length += len(parts[-1])
                if self.printed + length > limits.Script.MAX_OUTPUT_CHARS:
                    raise self.too_much_output()
            self.write(sep.join(parts) + end)
            return None
        if kwargs and name not in ("round", "sorted", "min", "max", "enumerate"):
            raise ScriptRuntimeError(f"{name}() takes no keyword arguments", "TypeError")
        if name in _WALKING_BUILTINS:  # Python would walk a range item by item, or compare items
            for a in args:
                bounds.check_range(a, self.line)
            if name in ("min", "max", "sorted", "set"):
                bounds.check_sort(
                    args[0] if len(args) == 1 and isinstance(args[0], list) else list(args), self.line
                )
        if (
            name == "round"
            and len(args) == 2
            and all(isinstance(a, int) and not isinstance(a, bool) for a in args)
        ):
            number, digits = args
            if digits < -(number.bit_length() * 10 // 33 + 2):  # fewer digits than the number has
                return 0  # Python's answer, without building 10**-digits

        if name == "id" and len(args) == 1:  # the value's identity in this run (stable while it lives)
            return id(args[0])
        if name == "map" and len(args) >= 2:  # map(torch.tensor, (x, y)): a list, made at the call
            for a in args[1:]:
                bounds.check_range(a, self.line)
            columns = [self.sequence_of(a) for a in args[1:]]
            return [self.call_value(args[0], list(row), node) for row in zip(*columns)]
        if name == "str":
            return self.text(args[0]) if args else ""
        if name == "repr":
            return self.repr(args[0])
        if name in ("float", "int", "bool") and args and isinstance(args[0], Tensor):
            if name == "bool":
                return self.truth(args[0])
            t = args[0]
            if t.value.size != 1:
                raise ScriptRuntimeError("only one element tensors can be converted to Python scalars")
            return {"float": float, "int": int}[name](t.value.reshape(()).item())
        if name == "super":
            return self.super_of(args)
        if name == "len" and len(args) == 1 and isinstance(args[0], Instance):
            return self.object_length(args[0])
        if name == "len":
            value = args[0]
            if isinstance(value, Tensor):
                if not value.shape:
                    raise ScriptRuntimeError("len() of a 0-d tensor", "TypeError")
                return value.shape[0]
            return self.python(lambda: len(value))
        if name == "abs" and args and isinstance(args[0], Tensor):
            return self.apply("abs", [args[0]], {})
        if name == "round" and args and isinstance(args[0], Tensor):
            return self.apply("round", [args[0]], {})
        if name == "sum":
            total = args[1] if len(args) > 1 else 0
            for item in self.sequence_of(args[0]):
                total = self.binop(total, ast.Add, item, node)
            return total
        if name == "iter":
            if len(args) != 1:
                raise ScriptError(f"{source_position(node)}: iter() takes one sequence here")
            return args[0] if isinstance(args[0], Iterator) else Iterator(self.sequence_of(args[0]))
        if name == "next":
            if not args or not isinstance(args[0], Iterator):
                raise ScriptRuntimeError(
                    f"'{self.type_name(args[0]) if args else 'nothing'}' object is not an iterator",
                    "TypeError",
                )
            iterator = args[0]
            if iterator.position >= len(iterator.items):
                if len(args) > 1:
                    return args[1]
                raise ScriptRuntimeError("", "StopIteration")
            iterator.position += 1
            return iterator.items[iterator.position - 1]
        if name == "type":
            if len(args) != 1:
                raise ScriptError(f"{source_position(node)}: type() takes one value here")
            return self.type_of(args[0])
        if name in ("min", "max") and (
            any(isinstance(a, Tensor) for a in args)
            or (
                len(args) == 1
                and isinstance(args[0], (list, tuple))
                and any(isinstance(a, Tensor) for a in args[0])
            )
        ):
            return self.extreme(name, args, kwargs, node)
        if name == "range":
            if not all(isinstance(a, int) for a in args):
                raise ScriptRuntimeError("'float' object cannot be interpreted as an integer", "TypeError")
            return self.python(lambda: range(*args))
        if name in ("list", "tuple", "sorted", "reversed", "enumerate", "zip", "any", "all", "set"):
            items = [self.sequence_of(a) for a in args]
            if name == "zip":
                return list(zip(*items))
            if name == "enumerate":  # enumerate(xs), enumerate(xs, 1), enumerate(xs, start=1)
                start = args[1] if len(args) > 1 else kwargs.pop("start", 0)
                if len(args) > 2 or kwargs or not isinstance(start, int) or not items:
                    raise ScriptRuntimeError("enumerate() takes a sequence and a start", "TypeError")
                return list(enumerate(items[0], start))
            impl = {
                "list": list,
                "tuple": tuple,
                "set": set,  # sorted(set(...)), as makemore builds its alphabet
                "sorted": sorted,
                "reversed": lambda s: list(reversed(s)),
                "any": any,
                "all": all,
            }[name]
            if name in ("any", "all"):
                return impl(self.truth(v) for v in items[0])
            return self.python(lambda: impl(*items, **kwargs))
        if name == "isinstance":
            if len(args) != 2:
                raise ScriptRuntimeError("isinstance expected 2 arguments", "TypeError")
            classes = args[1] if isinstance(args[1], tuple) else (args[1],)
            if any(isinstance(c, ClassValue) for c in classes):
                chain = args[0].cls.chain() if isinstance(args[0], Instance) else []
                if any(c in chain for c in classes if isinstance(c, ClassValue)):
                    return True
                classes = tuple(c for c in classes if not isinstance(c, ClassValue))
            mine = self.class_name(args[0])
            # bool is an int subclass, as in Python, and a Parameter a Tensor
            bases = {"bool": "int", "torch.nn.parameter.Parameter": "torch.Tensor"}
            return any(self.named_class(c) in (mine, bases.get(mine, mine)) for c in classes)
        impl = {"float": float, "int": int, "bool": bool, "round": round, "abs": abs, "min": min, "max": max}[
            name
        ]
        if any(isinstance(a, Tensor) for a in args):
            raise ScriptError(f"{source_position(node)}: {name}() of a tensor is not supported here")
        return self.python(lambda: impl(*args, **kwargs))

    def named_class(self, value: Any) -> str:
        """The class a script names in isinstance(v, torch.Tensor) / (int, float)."""
        if isinstance(value, Function) and value.module == "torch" and value.name == "Tensor":
            return "torch.Tensor"
        if isinstance(value, Function) and value.module == "" and value.name in _CLASSES:
            return value.name
        if isinstance(value, TypeOf):
            return value.name
        raise ScriptRuntimeError(
            "isinstance() arg 2 must be a type, a tuple of types, or a union", "TypeError"
        )

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
        if isinstance(value, BoundMethod):
            return "method"
        if isinstance(value, Counter):
            return "collections.Counter"
        if isinstance(value, StateDict):
            return "collections.OrderedDict"
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
        if isinstance(value, NumpyType):
            return "type"
        if isinstance(value, NumpyGenerator):
            return "numpy.random._generator.Generator"
        if isinstance(value, TorchGenerator):
            return "torch._C.Generator"
        if isinstance(value, (runtime.Fn, AccumulateGrad)):
            return f"{value.name if isinstance(value, runtime.Fn) else 'AccumulateGrad'}"
        if isinstance(value, UserFunction):
            return "function"
        if isinstance(value, Caught):
            return value.kind
        if isinstance(value, Generated):
            return "generator"
        if isinstance(value, (bool, int, float, str, list, tuple, dict, set, range)) or value is None:
            return type(value).__name__
        return self.type_name(value)

    def method(self, receiver: Any, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if isinstance(receiver, ModuleInstance):
            return self.module_method(receiver, name, args, kwargs, node)
        if name.startswith("@init:"):  # nn.Module.__init__(self), object's __init__ through super()
            if receiver is None:
                if not args:
                    raise ScriptRuntimeError(
                        "descriptor '__init__' of 'object' object needs an argument", "TypeError"
                    )
                receiver, args = args[0], args[1:]
            if isinstance(receiver, ModuleInstance):
                return self.module_method(receiver, name, args, kwargs, node)
            return self.builtin_init(
                receiver, receiver.cls if isinstance(receiver, Instance) else None, args, kwargs
            )
        if isinstance(receiver, Context):
            return self.context_method(receiver, name, args, kwargs)
        if isinstance(receiver, ClassValue) and name == "apply":
            return self.apply_function(receiver, args, kwargs, node)
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
        if isinstance(receiver, list):
            if name == "append" and len(args) == 1:
                receiver.append(args[0])
                self.check_length(receiver)
                return None
            if name == "extend" and len(args) == 1:
                receiver.extend(self.sequence_of(args[0]))
                self.check_length(receiver)
                return None
            if name in _LIST_METHODS and not kwargs or name == "sort" and set(kwargs) <= {"reverse"}:
                if name == "insert":
                    self.check_length(receiver + [None])
                if name == "sort" and any(isinstance(v, Tensor) for v in receiver):
                    raise ScriptError(
                        f"{source_position(node)}: sorting a list of tensors is not supported; use torch.sort"
                    )
                if name == "sort":
                    bounds.check_sort(receiver, self.line)
                elif name in ("index", "count", "remove"):  # each compares its argument with every item
                    bounds.measure([receiver, *args], self.line)
                return self.python(lambda: getattr(receiver, name)(*args, **kwargs))
        if isinstance(receiver, dict):
            if name in ("items", "keys", "values") and not args and not kwargs:
                return list(getattr(receiver, name)())  # a list where Python gives a view
            if name == "get" and 1 <= len(args) <= 2 and not kwargs:
                return self.python(lambda: receiver.get(*args))
            if name == "update" and len(args) == 1 and isinstance(args[0], dict) and not kwargs:
                receiver.update(args[0])
                self.check_length(receiver)
                return None
        if isinstance(receiver, str):
            if name == "format":
                return self.str_format(receiver, args, kwargs)
            if name == "join" and len(args) == 1:
                items = self.sequence_of(args[0])
                length = sum(len(i) if isinstance(i, str) else 0 for i in items)
                bounds.check_text_length(length + len(receiver) * max(len(items) - 1, 0), self.line)
                return self.python(lambda: receiver.join(items))
            if (
                name in _STR_METHODS
                and not kwargs
                or name in ("split", "rsplit")
                and set(kwargs) <= {"sep", "maxsplit"}
            ):
                if not all(
                    isinstance(a, (str, int, tuple)) and not isinstance(a, bool) or a is None for a in args
                ):
                    raise ScriptRuntimeError(f"str.{name}() takes strings and integers here", "TypeError")
                if name == "replace" and len(args) >= 2 and all(isinstance(a, str) for a in args[:2]):
                    old, new = args[0], args[1]
                    grows = (receiver.count(old) if old else len(receiver) + 1) * max(len(new) - len(old), 0)
                    self.check_length(" " * min(len(receiver) + grows, limits.Script.MAX_SEQUENCE + 1))
                if name in ("center", "ljust", "rjust", "zfill") and args and isinstance(args[0], int):
                    self.check_length(" " * min(args[0], limits.Script.MAX_SEQUENCE + 1))
                return self.python(lambda: getattr(receiver, name)(*args, **kwargs))
        if isinstance(receiver, (np.ndarray, np.generic)) and name in ARRAY_METHODS:
            return self.array_method(receiver, name, args, kwargs, node)
        if isinstance(receiver, NumpyGenerator) and name in GENERATOR_METHODS:
            return self.numpy_generator_method(receiver, name, args, kwargs, node)
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
        if isinstance(receiver, float) and name == "is_integer":
            return receiver.is_integer()
        if isinstance(receiver, HookHandle) and name == "remove" and not args and not kwargs:
            receiver.remove()
            return None
        if isinstance(receiver, Tensor):
            return self.tensor_method(receiver, name, args, kwargs, node)
        if isinstance(receiver, (str, list, dict, tuple, int, float)) and hasattr(type(receiver), name):
            # Python has it, gradcli does not: not the script's AttributeError
            raise ScriptError(
                f"{source_position(node)}: {self.type_name(receiver)}.{name}() is not supported by gradcli run"
            )
        raise ScriptRuntimeError(
            f"'{self.type_name(receiver)}' object has no attribute '{name}'", "AttributeError"
        )

    def percent_format(self, template: str, args: Any, node: ast.AST) -> str:
        """'%.4f' % loss.item(), '%s' % tensor: Python's printf-style formatting of script values.
        A tensor gives its printed form to %s and %r and its number to the numeric
        conversions; widths and precisions are capped as in f-strings, `*` is refused."""
        specs = list(_PERCENT_SPEC.finditer(template))
        for spec in specs:
            for part in (spec["width"], spec["precision"]):
                if part == "*":
                    raise ScriptError(
                        f"{source_position(node)}: a '*' width or precision in %-formatting is not supported"
                    )
                if part and len(part) > 3:
                    raise ScriptError(
                        f"line {self.line}: format width or precision over 999 is not supported"
                    )
        conversions = [spec["conversion"] for spec in specs if spec["conversion"] != "%"]

        def value(item: Any, conversion: str) -> Any:
            if isinstance(item, Tensor) and conversion not in "rsa":
                return self.item(item)
            if isinstance(item, (int, float, str, bool)) or item is None:
                return item
            return _Printed(self.text(item), self.repr(item))

        if isinstance(args, dict):
            args = {k: value(v, "s") for k, v in args.items()}
        elif isinstance(args, tuple):
            args = tuple(value(v, c) for v, c in zip(args, conversions + ["s"] * len(args)))
        else:
            args = value(args, conversions[0] if conversions else "s")
        return self.python(lambda: template % args)

    def str_format(self, template: str, args: list, kwargs: dict) -> str:
        """str.format without attribute or item lookups: fields are positions or keywords."""
        pieces = []
        position = total = 0
        try:
            parsed = list(string.Formatter().parse(template))
        except ValueError as exc:
            raise ScriptRuntimeError(str(exc), "ValueError") from None
        for literal, field_name, spec, conversion in parsed:
            pieces.append(literal)
            if field_name is None:
                continue
            if field_name == "":
                if position >= len(args):
                    raise ScriptRuntimeError(
                        "Replacement index out of range for positional args tuple", "IndexError"
                    )
                value, position = args[position], position + 1
            elif field_name.isdigit():
                if int(field_name) >= len(args):
                    raise ScriptRuntimeError(
                        "Replacement index out of range for positional args tuple", "IndexError"
                    )
                value = args[int(field_name)]
            elif field_name.isidentifier() and field_name in kwargs:
                value = kwargs[field_name]
            else:
                raise ScriptError(f"line {self.line}: format fields are positions or keyword names here")
            if conversion == "r":
                value = self.repr(value)
            elif conversion in ("s", "a"):
                value = self.text(value)
            pieces.append(self.format(value, spec or ""))
            total += len(literal) + len(pieces[-1])
            bounds.check_text_length(total, self.line)
        return self.check_length("".join(pieces))
