"""Python's operators and calls on torch's values: a tensor's arithmetic and comparisons, its
truth and format, and a call of one of torch's functions routed to the room that has it."""

from __future__ import annotations

import ast
import re
from typing import Any

import numpy as np

from ..errors import (
    ArgumentValueError,
    DerivativeNotImplemented,
    IndexOutOfRange,
    ParseError,
)
from ..ops import BINARY, BITWISE, COMPARISON_SYMBOLS, COMPARISONS
from .classes import CLASS_OBJECTS, Instance
from .random_api import RANDOM_CALLS, STATE_FUNCTIONS
from .runtime import ScriptError, ScriptRuntimeError, Tensor, source_position
from .tensor_methods import TORCH_IN_PLACE_FUNCTIONS
from .torch_api import CONSTRUCTORS, PIECE_CALLS, POSITION_CALLS
from .values import (
    ARGUMENT_SLIPS,
    Fixed,
    Function,
    Method,
    show,
)

_COMPARED = {getattr(ast, kind): COMPARISON_SYMBOLS[name] for kind, name in COMPARISONS.items()}
# The binder's refusals of an argument's kind, count or value, and the exception torch raises
_BINDER_ARGUMENT_WORDS = {
    "got an unexpected keyword argument": "TypeError",
    "got multiple values for argument": "TypeError",
    "must be an integer literal": "TypeError",
    "must be True or False": "TypeError",
    "argument(s) (": "TypeError",
    "must be a number literal": "TypeError",
    "tuple is not allowed": "TypeError",
    "list is not allowed": "TypeError",
    "is not a valid value for": "ValueError",
}
_ERROR_PLACE = re.compile(r"^line \d+(, column \d+)?: ")


def _invalid_arguments(func: Any, args: list, kwargs: dict, type_name: Any) -> str:
    """torch's first line for arguments none of a function's signatures takes."""
    name = getattr(func, "name", "function")
    given = [type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in kwargs.items()]
    return f"{name}() received an invalid combination of arguments - got ({', '.join(given)})"


def torch_kind(exc: Exception) -> str:
    """The Python exception torch raises for an engine error: IndexError for an index or a
    class target out of range, ValueError for F.*'s own Python checks, RuntimeError for the rest."""
    if isinstance(exc, ArgumentValueError):
        return "ValueError"
    if isinstance(exc, DerivativeNotImplemented):
        return "NotImplementedError"
    return "IndexError" if isinstance(exc, IndexOutOfRange) else "RuntimeError"


class PythonSubset:
    """Mixed into Interpreter: the Python language of a script (see the module's docstring)."""

    def iterable(self, items: Any, node: ast.AST) -> Any:
        """What `for` walks over a torch value: a tensor's rows, a list or tuple's items."""
        if isinstance(items, Tensor):
            if not items.shape:
                raise ScriptRuntimeError("iteration over a 0-d tensor", "TypeError")
            return [self.index_tensor(items, i, node) for i in range(items.shape[0])]
        if isinstance(items, (dict, set)):
            return list(items)  # a dict's keys, as Python iterates it; a set's members
        if isinstance(items, Instance):
            return self.items_of_object(items, node)
        if not isinstance(items, (list, tuple, str, range)):
            raise ScriptRuntimeError(f"'{self.type_name(items)}' object is not iterable", "TypeError")
        return items

    def sequence(self, value: Any) -> list:
        if isinstance(value, (list, tuple)):
            return list(value)
        if isinstance(value, Instance):
            return self.items_of_object(value, None)
        if isinstance(value, Tensor) and value.shape:
            return [self.index_tensor(value, i, None) for i in range(value.shape[0])]
        if isinstance(value, np.ndarray) and value.shape:  # rows (views), or NumPy numbers
            return list(value)
        raise ScriptRuntimeError(f"cannot unpack non-iterable {self.type_name(value)} object", "TypeError")

    def format(self, value: Any, spec: str) -> str:
        """format(value, spec) of a torch value, as torch's __format__ gives it."""
        if isinstance(value, Tensor):
            if value.value.ndim == 0:
                return self.python(lambda: format(self.item(value), spec))
            if spec:
                raise ScriptRuntimeError("unsupported format string passed to Tensor.__format__", "TypeError")
            return show(value)
        if isinstance(value, (int, float, str, bool, np.generic)) or value is None:
            return self.python(lambda: format(value, spec))
        if spec:
            raise ScriptRuntimeError(
                f"unsupported format string passed to {self.type_name(value)}.__format__", "TypeError"
            )
        return self.text(value)

    def python(self, compute):
        """A Python-level operation on torch's values; its errors become the script's errors."""
        try:
            return compute()
        except (ZeroDivisionError, IndexError, ValueError, TypeError, OverflowError, KeyError) as exc:
            raise ScriptRuntimeError(str(exc), type(exc).__name__) from None

    def binop(self, left: Any, op: type, right: Any, node: ast.AST) -> Any:
        """`left <op> right` with a tensor on one side (Tensor.__add__ and its kin)."""
        left, right = (self.beside_tensor(side, op, left) for side in (left, right))
        for side in (left, right):
            if not isinstance(side, (Tensor, int, float, bool)):
                raise ScriptRuntimeError(
                    f"unsupported operand type(s): '{self.type_name(left)}' and '{self.type_name(right)}'",
                    "TypeError",
                )
        if op.__name__ in BITWISE:  # torch's bitwise functions, as composites of the registry
            return self.registry("torch", BITWISE[op.__name__], None, [left, right], {}, node)
        if op.__name__ not in BINARY:
            raise ScriptError(f"{source_position(node)}: operator {op.__name__} is not supported on tensors")
        return self.apply(BINARY[op.__name__], [left, right], {})

    def compare_pair(self, left: Any, kind: type, right: Any) -> Any:
        """`left <op> right` with a tensor on one side, `kind` the ast class of the comparison."""
        if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
            raise ScriptRuntimeError(
                f"'{_COMPARED[kind]}' not supported between instances of "
                f"'{self.class_name(left).replace('torch.', '')}' and "
                f"'{self.class_name(right).replace('torch.', '')}'",
                "TypeError",
            )
        pair = [v.item() if isinstance(v, np.generic) else v for v in (left, right)]
        return self.apply(COMPARISONS[kind.__name__], pair, {})

    def truth(self, value: Any) -> bool:
        if isinstance(value, Tensor):
            if value.value.size != 1:
                raise ScriptRuntimeError(
                    "Boolean value of Tensor with more than one value is ambiguous"
                    if value.value.size
                    else "Boolean value of Tensor with no values is ambiguous"
                )
            return bool(value.value.reshape(()))
        if isinstance(value, (int, float, str, list, tuple, bool, range)) or value is None:
            return bool(value)
        if isinstance(value, (np.ndarray, np.generic)):  # NumPy's truth: one element, or ValueError
            return self.python(lambda: bool(value))
        return True

    # -- calls ----------------------------------------------------------------------

    def call_function(self, func: Any, args: list, kwargs: dict, node: ast.Call) -> Any:
        """Call a value with evaluated arguments: the script's def, a class, or a builtin."""
        if isinstance(func, CLASS_OBJECTS):
            return self.call_object(func, args, kwargs, node)
        try:
            return self.dispatch(func, args, kwargs, node)
        except ARGUMENT_SLIPS as exc:
            # gradcli's own code met an argument of a kind it does not take (x.add(None),
            # x.sum(dim=x)): torch's argument parser refuses these with a TypeError
            raise ScriptRuntimeError(
                _invalid_arguments(func, args, kwargs, self.type_name), "TypeError"
            ) from exc
        except ParseError as exc:
            message = re.sub(r" \(hint: .*\)$", "", _ERROR_PLACE.sub("", exc.message))  # torch's words only
            kinds = [kind for word, kind in _BINDER_ARGUMENT_WORDS.items() if word in message]
            if not kinds:
                raise
            raise ScriptRuntimeError(message, kinds[0]) from None

    def dispatch(self, func: Any, args: list, kwargs: dict, node: ast.Call) -> Any:
        """A call of a builtin, a torch function or a method, its arguments evaluated."""
        if isinstance(func, Function):
            if func.module == "torch.autograd.forward_ad":
                return self.forward_ad_call(func.name, args, kwargs, node)
            if func.module == "torch.autograd.graph":
                return self.saved_tensors_hooks(args, kwargs)
            if func.module == "torch.autograd" and func.name == "Variable":
                return self.variable(args, kwargs)
            if func.module == "torch.autograd":
                return self.autograd_call(func.name, args, kwargs, node)
            if func.module == "torch" and func.name.startswith(("set_default", "get_default")):
                return self.default_setting(func.name, args, kwargs, node)
            if func.module == "torch.nn.init":
                return self.init_call(func.name, args, kwargs)
            if func.module == "torch.nn" and func.name == "Parameter":
                return self.parameter(args, kwargs)
            if func.module == "torch.autograd.functional":
                return self.functional(func.name, args, kwargs, node)
            if func.module == "torch" and func.name in STATE_FUNCTIONS:
                return self.state_call(func.name, args, kwargs)
            if func.module == "torch" and func.name in RANDOM_CALLS:
                return self.random_call(func.name, args, kwargs)
            if func.module == "torch" and func.name in CONSTRUCTORS:
                return self.construct(func.name, args, kwargs, node)
            if (
                func.module == "torch"
                and func.name in POSITION_CALLS
                or (func.module == "torch" and func.name == "where" and len(args) == 1 and not kwargs)
            ):
                if not args or not isinstance(args[0], Tensor):
                    raise ScriptRuntimeError(f"{func.name}(): argument 'input' must be Tensor", "TypeError")
                return self.positions(func.name, args[0], args[1:], kwargs)
            if func.module == "torch" and func.name in PIECE_CALLS:
                if not args or not isinstance(args[0], Tensor):
                    raise ScriptRuntimeError(f"{func.name}(): argument 'input' must be Tensor", "TypeError")
                return self.pieces(func.name, args[0], args[1:], kwargs)
            if func.module == "torch" and func.name in TORCH_IN_PLACE_FUNCTIONS:
                if not args or not isinstance(args[0], Tensor):
                    got = f", not {self.type_name(args[0])}" if args else ""
                    raise ScriptRuntimeError(
                        f"{func.name}(): argument 'input' (position 1) must be Tensor{got}", "TypeError"
                    )
                return self.tensor_method(args[0], func.name, list(args[1:]), kwargs, node)
            return self.registry(func.module, func.name, None, args, kwargs, node)
        if isinstance(func, Method):
            return self.method(func.receiver, func.name, args, kwargs, node)
        if isinstance(func, Fixed):
            if args or kwargs:
                raise ScriptRuntimeError(f"{func.name}() takes no arguments", "TypeError")
            return func.value
        raise ScriptRuntimeError(f"'{self.type_name(func)}' object is not callable", "TypeError")

    def sequence_of(self, value: Any) -> list:
        if isinstance(value, (list, tuple, str, dict, set, range)):
            return list(value)
        if isinstance(value, int):
            return value  # enumerate(xs, 1)'s start
        return self.sequence(value)
