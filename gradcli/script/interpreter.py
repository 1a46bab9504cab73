"""The `run` interpreter: PyTorch autograd scripts walked statement by statement, never executed.

Python's parser reads the script; `check` walks the whole tree against a whitelist
before anything runs (so a hostile script prints nothing), then `Interpreter` walks it,
statement by statement. Tensor calls bind to the op registry through the program
parser's own binder (`parse._Parser.plan_call` / `plan_subscript`): the evaluated
arguments are handed to it as literals, so spellings, defaults and keyword checks are
exactly those of `gradcli grad`. Each tensor result is a node of a graph that grows as
statements run (runtime.py); backward() hands the reached part to autograd.backward.

Caps (gradcli/limits.py's Script, README "Safety and limits"): MAX_STEPS statements executed,
MAX_LOOP iterations of one `for`, MAX_CALL_DEPTH nested calls, MAX_EXPR_DEPTH nesting of one
expression, MAX_OUTPUT_CHARS printed, MAX_SEQUENCE items in a list or string, MAX_INT_BITS
bits of an integer.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import itertools
import math
import os
import re
import string
import sys
import threading
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import limits
from ..errors import AutogradError, GradcliError, IndexOutOfRange, LimitError, ParseError, ShapeError
from ..ops import MODULES, NOT_METHODS, REWRITES, strides
from ..ops.constructors import arange_values, linspace_values
from ..ops.indexing import check_subscript, index_place
from ..parse import Apply, Num, _Parser, returns_pair
from . import bounds, runtime
from .runtime import (
    LEAF_IN_PLACE,
    NO_GRAD_VIEW,
    NON_LEAF_GRAD,
    VIEW_OF_LEAF,
    ScriptError,
    ScriptRuntimeError,
    Tensor,
    apply_op,
)
from .tensor_repr import (
    dtype_repr,
    grad_fn_repr,
    reset_print_options,
    set_print_options,
    size_repr,
    tensor_repr,
)
from .writes import COPY_SLICES, VIEW_AFTER_WRITE


def show(t: Tensor) -> str:
    """The one place a tensor becomes text: PyTorch's repr."""
    if t.stale_view and not t.view_of.steps:  # PyTorch regenerates a view's grad_fn
        t.refresh_view()
    name = t.grad_fn.name if t.grad_fn is not None else None
    if t.stale_view:
        name = "AsStridedBackward0"
    text = tensor_repr(t.value, dtype=t.dtype, requires_grad=t.requires_grad, grad_fn=name, is_leaf=t.is_leaf)
    return "Parameter containing:\n" + text if _is_parameter(t) else text


def _is_parameter(t: Tensor) -> bool:
    """Made by torch.nn.Parameter (views, detach() and results of ops are plain tensors)."""
    return t.__dict__.get("parameter", False)


# ---------------------------------------------------------------- values of the language


@dataclass(frozen=True)
class Module:
    name: str  # torch, torch.nn.functional, torch.autograd, math, numpy


@dataclass(frozen=True)
class Function:
    """A library function: `torch.sin`, `F.relu`, `math.sqrt`, or a builtin (`print`)."""

    module: str  # "" for builtins
    name: str


@dataclass(frozen=True)
class Method:
    receiver: Any
    name: str


@dataclass(frozen=True)
class DType:
    name: str  # float32

    def __repr__(self) -> str:
        return dtype_repr(self.name)


class Size(tuple):
    def __repr__(self) -> str:
        return size_repr(self)


def _tensor_split_bounds(sections: Any, size: int) -> list[tuple[int, int]]:
    """torch.tensor_split's pieces: n sections (the first size % n one longer), or cuts at indices."""
    if isinstance(sections, int) and not isinstance(sections, bool):
        if sections <= 0:
            raise ScriptRuntimeError(f"number of sections must be larger than 0, got {sections}")
        if sections > limits.Script.MAX_SEQUENCE:
            raise ScriptError(f"more than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,} pieces")
        small, extra = divmod(size, sections)
        lengths = [small + 1] * extra + [small] * (sections - extra)
        starts = [sum(lengths[:k]) for k in range(sections)]
        return [(a, a + n) for a, n in zip(starts, lengths, strict=True)]
    if isinstance(sections, (list, tuple)) and all(isinstance(i, int) and not isinstance(i, bool) for i in sections):
        if len(sections) >= limits.Script.MAX_SEQUENCE:
            raise ScriptError(f"more than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,} pieces")
        cuts = [min(max(i + size if i < 0 else i, 0), size) for i in sections]
        starts = [0, *cuts]
        ends = [*cuts, size]
        return [(a, max(a, b)) for a, b in zip(starts, ends, strict=True)]
    raise ScriptRuntimeError(
        "tensor_split(): argument 'indices_or_sections' must be an int or a list of ints", "TypeError"
    )


@dataclass(frozen=True)
class TypeOf:
    """What `type(v)` gives a script: a class it can print and compare, nothing to call."""

    name: str  # 'torch.Tensor', 'tuple' ...

    def __repr__(self) -> str:
        return f"<class '{self.name}'>"


class Picked(tuple):
    """What x.max(dim) and torch.min(x, dim) return: torch.return_types.max(values, indices),
    a tuple (unpacking, [0], [1]) whose parts are also .values and .indices."""

    kind: str

    def __new__(cls, parts: list, kind: str) -> Picked:
        picked = super().__new__(cls, parts)
        picked.kind = kind
        return picked

    @property
    def values(self) -> Any:
        return self[0]

    @property
    def indices(self) -> Any:
        return self[1]


@dataclass
class UserFunction:
    node: ast.FunctionDef
    grad_mode: NoGrad | None = None  # @torch.no_grad(): the body runs without recording
    generator: bool = False  # a body with `yield`: calling it runs it through (see Generated)
    closure: tuple[dict, ...] = ()  # the enclosing defs' frames, innermost first (read-only names)


class Generated(list):
    """What calling a generator function gives a script: the body runs to its end at the
    call (within the script's caps) and its yielded values are iterated afterwards. Only the
    timing of the body's own side effects (prints) can differ from Python's lazy generator."""

    def __init__(self, values: list, name: str) -> None:
        super().__init__(values)
        self.name = name


@dataclass
class Iterator:
    """iter(sequence): next() takes its items in order."""

    items: list
    position: int = 0


@dataclass(frozen=True)
class NoGrad:
    enabled: bool = False  # torch.no_grad() -> False, torch.enable_grad() -> True
    before: bool | None = None  # set_grad_enabled(b) switched at the call: the mode to restore
    inference: bool = False  # torch.inference_mode(): tensors made inside keep no version counter


@dataclass
class Caught:
    """An exception value bound by `except RuntimeError as e`."""

    kind: str
    message: str


@dataclass(eq=False)
class AccumulateGrad:
    """The node that accumulates a leaf's gradient into .grad (PyTorch's next_functions show it)."""

    variable: Tensor


REFERENCE_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and "
    "its gradient which can cause a memory leak. We recommend using autograd.grad when creating the "
    "graph to avoid this. If you have to use this function, make sure to reset the .grad fields of "
    "your parameters to None after use to break the cycle and avoid the leak. (Triggered internally "
    "at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)"
)


def next_functions(fn: Any) -> tuple:
    """PyTorch's grad_fn.next_functions: one (node, 0) per differentiable tensor input.

    A number operand of mul/add/sub/div is a wrapped tensor in PyTorch (an entry of its own,
    None, after the tensor: 2 * x is mul(x, 2)); rsub, rdiv and pow take it as a Scalar (no
    entry); where's condition is no input."""
    if isinstance(fn, AccumulateGrad):
        return ()
    operands = list(fn.operands)
    name = fn.op.name
    if name == "where":
        operands = operands[1:]
    tensors = [o for o in operands if isinstance(o, runtime.Operand)]
    wrapped = name in ("mul", "add") or name in ("sub", "div") and isinstance(operands[-1], float)
    wrapped = wrapped and not fn.name.endswith("Backward1")  # a rule's Scalar overload has no entry
    wrapped = wrapped or name == "copy_slices"  # y[0] = 0 copies from a tensor made of the number
    # create_graph's .grad is copy_ into a new tensor that requires no grad: its entry first
    entries: list[tuple] = [(None, 0)] if fn.name == "CopyBackwards" else []
    for operand in tensors:
        if operand.grad_fn is not None:
            entries.append((operand.grad_fn, 0))
        elif operand.requires_grad:
            if operand.tensor.accumulator is None:  # one per leaf, as PyTorch keeps it
                operand.tensor.accumulator = AccumulateGrad(operand.tensor)
            entries.append((operand.tensor.accumulator, 0))
        else:
            entries.append((None, 0))
    if wrapped and len(tensors) < len(operands):
        entries.append((None, 0))
    if name == "clamp_tensor":  # clamp.Tensor keeps a slot for a bound left out (a number here)
        entries = _fill(entries, operands)
    return tuple(entries)


def _fill(entries: list, operands: list) -> list:
    """The tensor operands' entries, spread over every operand position (None where a number)."""
    found = iter(entries)
    return [next(found) if isinstance(o, runtime.Operand) else (None, 0) for o in operands]


_HOOK_IDS = itertools.count()


@dataclass(eq=False)
class HookHandle:
    """What register_hook returns; .remove() takes the hook off."""

    owner: dict
    key: int

    def remove(self) -> None:
        self.owner.pop(self.key, None)


class Device:
    """torch.device: gradcli runs on the CPU; a cuda or mps device can be named, not used."""

    def __init__(self, kind: str = "cpu") -> None:
        self.kind = kind

    def __repr__(self) -> str:
        return f"device(type='{self.kind}')"

    def __str__(self) -> str:  # print(x.device) and f"{x.device}" show "cpu"
        return self.kind

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.kind == self.kind

    __hash__ = None  # type: ignore[assignment]


NO_CUDA = "Torch not compiled with CUDA enabled"


class Fixed:
    """A torch function whose answer is fixed here: torch.cuda.is_available() is False."""

    def __init__(self, name: str, value: Any) -> None:
        self.name, self.value = name, value


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


@dataclass
class RunResult:
    stdout: str
    warnings: list[str] = field(default_factory=list)
    backward_calls: list[dict] = field(default_factory=list)
    error: str | None = None  # `line N: RuntimeError: ...`; what was printed before is in stdout

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "stdout": self.stdout,
            "warnings": list(self.warnings),
            "backward_calls": [c if isinstance(c, dict) else c.to_dict() for c in self.backward_calls],
        }
        if self.error is not None:
            document["error"] = self.error
        return document


_DTYPES = {
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
    "int64": "int64",
    "long": "int64",
    "int32": "int32",
    "int": "int32",
    "bool": "bool",
}
_PIECES = ("chunk", "split", "unbind", "tensor_split", "var_mean", "std_mean")
_POSITIONS = ("nonzero", "argwhere")  # int64 positions: x.nonzero(), torch.argwhere(x)  # tensor methods and torch functions that return tuples
_CLASSES = ("int", "float", "bool", "str", "list", "tuple", "dict", "set", "range")
_TORCH_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int", "bool": "Bool"}
_CONSTRUCTORS = {
    "tensor",
    "Tensor",
    "FloatTensor",
    "DoubleTensor",
    "LongTensor",
    "zeros",
    "ones",
    "empty",
    "full",
    "eye",
    "arange",
    "linspace",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "no_grad",
    "enable_grad",
    "is_tensor",
    "set_grad_enabled",
    "is_grad_enabled",
    "numel",
    # random tensors come from gradcli's own generator (NumPy's PCG64, seeded by manual_seed,
    # else by 0): the same script gives the same numbers every run, but not torch's numbers
    "device",
    "set_printoptions",
    "Size",
    "allclose",
    "isclose",
    "equal",
    "inference_mode",
    "manual_seed",
    "rand",
    "randn",
    "rand_like",
    "randn_like",
    "randint",
}
_RANDOM = {"randperm", "normal", "seed"}
_MATH = {
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
_MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau}
_BUILTINS = {
    "print",
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
}
_EXCEPTIONS = {
    "RuntimeError",
    "Exception",
    "ValueError",
    "TypeError",
    "IndexError",
    "ZeroDivisionError",
    "AssertionError",
    "UserWarning",
    "StopIteration",
    "AttributeError",
    "KeyError",
}
_IMPORTS = {
    "torch": "torch",
    "torch.nn.functional": "torch.nn.functional",
    "torch.autograd": "torch.autograd",
    "torch.autograd.functional": "torch.autograd.functional",
    "torch.nn": "torch.nn",
    "math": "math",
    "numpy": "numpy",
}
_BIN = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.Pow: "pow",
    ast.MatMult: "matmul",
    ast.Mod: "remainder",
    ast.FloorDiv: "floor_divide",
}
# a & b, a | b, a ^ b of tensors: torch's bitwise functions, which the registry's composites
# take as the program language does (bool tensors: logical ops; float ones: torch's error)
_BITWISE = {ast.BitAnd: "bitwise_and", ast.BitOr: "bitwise_or", ast.BitXor: "bitwise_xor"}
# Builtins that walk their argument whole: a range is checked against MAX_SEQUENCE first.
_WALKING_BUILTINS = frozenset(
    {"min", "max", "sum", "sorted", "list", "tuple", "set", "any", "all", "enumerate", "zip", "reversed"}
)
_PY_BIN = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
_CONTAINERS = (list, tuple, dict, set)
# Work (MAX_SCRIPT_WORK's element operations) of one Python object made from a tensor element:
# tolist() takes ~30 ns an element where NumPy takes ~1.
_PYTHON_ITEM_WORK = 30
_CMP = {ast.Gt: "gt", ast.Lt: "lt", ast.GtE: "ge", ast.LtE: "le", ast.Eq: "eq", ast.NotEq: "ne"}
_PY_CMP = {
    ast.Gt: lambda a, b: a > b,
    ast.Lt: lambda a, b: a < b,
    ast.GtE: lambda a, b: a >= b,
    ast.LtE: lambda a, b: a <= b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
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


_IN_PLACE_METHODS = {"add_": "add", "sub_": "sub", "mul_": "mul", "div_": "div", "pow_": "pow"}
# x.clamp_(min=0), x.relu_(), ...: the method's op, written into x (torch's in-place variant)
_IN_PLACE_CALLS = {
    f"{name}_": name
    for name in (
        "clamp", "clip", "relu", "exp", "log", "tanh", "sigmoid", "neg", "abs", "sqrt", "square",
        "sin", "cos", "floor", "ceil", "round", "trunc", "sign", "reciprocal", "clamp_min", "clamp_max",
        "masked_fill", "tril", "triu", "cumsum", "cumprod",
    )
}  # fmt: skip

# ---------------------------------------------------------------- the whitelist

_ALLOWED = (
    ast.Yield,  # only as a statement in a def (check() refuses it elsewhere)
    ast.Starred,  # only as a call's argument, f(*xs) (check() refuses it elsewhere)
    ast.Module,
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.For,
    ast.While,
    ast.If,
    ast.FunctionDef,
    ast.Lambda,  # a def of one return expression (see Interpreter.expr)
    ast.Return,
    ast.Try,
    ast.ExceptHandler,
    ast.Assert,
    ast.With,
    ast.withitem,
    ast.Pass,
    ast.Break,
    ast.Continue,
    ast.Import,
    ast.ImportFrom,
    ast.alias,
    ast.arguments,
    ast.arg,
    ast.Name,
    ast.Load,
    ast.Store,
    ast.Constant,
    ast.Attribute,
    ast.Call,
    ast.keyword,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.Subscript,
    ast.Slice,
    ast.Tuple,
    ast.List,
    ast.Dict,
    ast.JoinedStr,
    ast.FormattedValue,
    ast.IfExp,
    ast.ListComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.comprehension,
    ast.operator,
    ast.unaryop,
    ast.boolop,
    ast.cmpop,
    ast.expr_context,
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
_NDARRAY_METHODS = {
    "tolist", "round", "mean", "sum", "max", "min", "argmax", "argmin", "std", "var", "copy",
    "flatten", "item", "prod", "cumsum", "all", "any",
}  # fmt: skip
_FALSE_PROPERTIES = {"is_cuda", "is_sparse", "is_quantized", "is_meta", "is_mps", "is_nested", "is_mkldnn", "is_complex"}
# Tensor methods the interpreter handles itself (the rest go to the registry's spellings)
_OWN_TENSOR_METHODS = {
    "backward", "copy_", "detach", "detach_", "is_contiguous", "item", "numpy", "register_hook",
    "register_post_accumulate_grad_hook", "requires_grad_", "retain_grad", "size", "stride", "to",
    "tolist", "zero_", "fill_", "cpu", "cuda", "dim", "ndimension", "float", "double", "long", "int",
    "bool", "type", "numel", "nelement", "scatter_", "scatter",
}  # fmt: skip


@functools.cache
def _tensor_methods() -> frozenset[str]:
    """Every name x.NAME(...) may call: the interpreter's own and the registry's methods."""
    from ..ops import TORCH_SPELLINGS

    return frozenset(
        _OWN_TENSOR_METHODS
        | set(_IN_PLACE_CALLS)
        | set(_IN_PLACE_METHODS)
        | set(_PIECES)
        | set(_POSITIONS)
        | {name for name in TORCH_SPELLINGS if name not in NOT_METHODS}
    )


_LIST_METHODS = {"index", "count", "insert", "pop", "remove", "reverse", "copy", "clear", "sort"}
_FORBIDDEN_CALLS = {
    "eval",
    "exec",
    "compile",
    "open",
    "getattr",
    "setattr",
    "delattr",
    "globals",
    "locals",
    "vars",
    "input",
    "breakpoint",
    "help",
    "dir",
    "object",
    "memoryview",
    "exit",
    "quit",
}
_WHAT = {
    "While": "while loops",
    "ClassDef": "class definitions",
    "Lambda": "lambda",
    "Global": "global",
    "Nonlocal": "nonlocal",
    "Delete": "del",
    "Raise": "raise",
    "SetComp": "set comprehensions",
    "Set": "sets",
    "YieldFrom": "yield from",
    "Await": "await",
    "AsyncFunctionDef": "async",
    "NamedExpr": "':='",
    "Starred": "starred arguments",
    "AnnAssign": "annotations",
}


# What gradcli's own code raises when a torch call is given an argument of a kind it does not
# take; the call ends as torch's argument parser would end it, with a TypeError.
_ARGUMENT_SLIPS = (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError, ZeroDivisionError)
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


# The keywords torch takes for calls the interpreter answers itself (None: none at all, in
# the words of a C method that takes no keywords); a call not listed is checked elsewhere.
_METHOD_KEYWORDS: dict[str, tuple[str, ...] | None] = {
    **dict.fromkeys(
        ("detach", "detach_", "dim", "item", "ndimension", "nelement", "numel", "retain_grad", "tolist", "zero_"),
        None,
    ),
    "numpy": ("force",),
    "requires_grad_": ("requires_grad",),
    "copy_": ("src", "non_blocking"),
}
_CONSTRUCTOR_KEYWORDS: dict[str, tuple[str, ...] | None] = {
    "is_grad_enabled": None,
    "no_grad": (),
    "enable_grad": (),
    "inference_mode": ("mode",),
    "set_grad_enabled": ("mode",),
    "is_tensor": ("obj",),
    "numel": ("input",),
    "manual_seed": ("seed",),
}


def _check_keywords(name: str, kwargs: dict, table: dict[str, tuple[str, ...] | None], owner: str) -> None:
    if name not in table or not kwargs:
        return
    allowed = table[name]
    if allowed is None:
        raise ScriptRuntimeError(f"{owner}{name}() takes no keyword arguments", "TypeError")
    for key in kwargs:
        if key not in allowed:
            raise ScriptRuntimeError(f"{name}() got an unexpected keyword argument '{key}'", "TypeError")


# Signatures whose arguments are Tensors, not Scalars (torch's `Tensor other`): a number there
# is torch's TypeError. By position from `input`; None marks an argument of another kind.
_TENSOR_ARGUMENTS: dict[str, tuple[str | None, ...]] = {
    **dict.fromkeys(("atan2", "arctan2", "maximum", "minimum", "matmul"), ("input", "other")),
    **dict.fromkeys(("logical_and", "logical_or", "logical_xor"), ("input", "other")),
    **dict.fromkeys(("mm", "bmm"), ("input", "mat2")),
    **dict.fromkeys(("outer", "ger"), ("input", "vec2")),
    "mv": ("input", "vec"),
    "dot": ("input", "tensor"),
    "addmm": ("input", "mat1", "mat2"),
    "masked_select": ("input", "mask"),
    "gather": ("input", None, "index"),
    "cosine_similarity": ("x1", "x2"),
    "cross_entropy": ("input", "target"),
    "nll_loss": ("input", "target"),
    "binary_cross_entropy_with_logits": ("input", "target"),
    "layer_norm": ("input", None, "weight", "bias"),
    "linear": ("input",),
}


def _check_tensor_arguments(name: str, method: bool, args: list, kwargs: dict, type_name: Any) -> None:
    params = _TENSOR_ARGUMENTS.get(name)
    if params is None:
        return
    params = params[1:] if method else params  # a method's receiver is its input
    for position, (param, value) in enumerate(zip(params, args), 1):
        if param is not None and isinstance(value, (int, float)):
            raise ScriptRuntimeError(
                f"{name}(): argument '{param}' (position {position}) must be Tensor, not {type_name(value)}", "TypeError"
            )
    for key, value in kwargs.items():
        if key in params and isinstance(value, (int, float)):
            raise ScriptRuntimeError(f"{name}(): argument '{key}' must be Tensor, not {type_name(value)}", "TypeError")


def _check_unpackable(values: Any) -> None:
    """A Python int given to a torch op: torch unpacks it into 64 bits, or raises."""
    for number in values:
        if isinstance(number, int) and not -(2**63) <= number < 2**64:
            raise ScriptRuntimeError(
                "int too big to convert" if number > 0 else "can't convert negative int to unsigned",
                "OverflowError",
            )


def _invalid_arguments(func: Any, args: list, kwargs: dict, type_name: Any) -> str:
    """torch's first line for arguments none of a function's signatures takes."""
    name = getattr(func, "name", "function")
    given = [type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in kwargs.items()]
    return f"{name}() received an invalid combination of arguments - got ({', '.join(given)})"


def _position(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', 1)}, column {getattr(node, 'col_offset', 0) + 1}"


def _dim_index(dim: Any, ndim: int) -> int:
    """A dim argument as a position (negative dims count from the end), torch's IndexError else."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise ScriptRuntimeError("stride(): argument 'dim' must be int", "TypeError")
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise ScriptRuntimeError(
            f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {dim})",
            "IndexError",
        )
    return dim % max(ndim, 1)


def _yields(node: ast.FunctionDef) -> bool:
    """Whether this def's own body (not a nested def's) yields: a generator function."""
    stack: list[ast.AST] = list(node.body)
    while stack:
        child = stack.pop()
        if isinstance(child, ast.Yield):
            return True
        if not isinstance(child, (ast.FunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(child))
    return False


def check(module: ast.Module) -> None:
    """Refuse, before running anything, what the language does not have; names the first offence."""
    statements = {  # `yield v` as a statement of a def: a generator function (Generated)
        id(n.value)
        for fn in ast.walk(module)
        if isinstance(fn, ast.FunctionDef)
        for n in ast.walk(fn)
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Yield)
    }
    spread = {id(a) for n in ast.walk(module) if isinstance(n, ast.Call) for a in n.args}  # f(*xs)
    # `def step(input, hidden)`, `dir = ...`: a name the script binds is its own variable, never
    # Python's builtin (which gradcli does not have); an unbound use is refused below.
    bound = {n.id for n in ast.walk(module) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {n.arg for n in ast.walk(module) if isinstance(n, ast.arg)}
    bound |= {n.name for n in ast.walk(module) if isinstance(n, ast.FunctionDef)}
    stack: list[tuple[ast.AST, int]] = [(module, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.Starred) and id(node) not in spread:
            raise ScriptError(f"{_position(node)}: starred expressions are supported in calls only, as in f(*xs)")
        if isinstance(node, ast.Yield) and id(node) not in statements:
            raise ScriptError(f"{_position(node)}: yield is supported as a statement in a def, as in `yield x, y`")
        if depth > limits.Script.MAX_EXPR_DEPTH and isinstance(node, ast.expr):
            raise ScriptError(
                f"{_position(node)}: expression nesting exceeds the limit MAX_EXPR_DEPTH={limits.Script.MAX_EXPR_DEPTH}"
            )
        kind = type(node).__name__
        if not isinstance(node, _ALLOWED):
            raise ScriptError(
                f"{_position(node)}: {_WHAT.get(kind, kind)} not supported in gradcli run scripts"
            )
        name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if isinstance(node, (ast.FunctionDef, ast.arg)):
            name = getattr(node, "name", None) or getattr(node, "arg", None)
        # `type(e).__name__` is read-only and gives a name: the one dunder a script may read
        readable = isinstance(node, ast.Attribute) and name == "__name__" and isinstance(node.ctx, ast.Load)
        if isinstance(name, str) and name.startswith("__") and not readable:
            raise ScriptError(f"{_position(node)}: names starting with '__' are not allowed: '{name}'")
        if isinstance(node, ast.Name) and node.id in _FORBIDDEN_CALLS and node.id not in bound:
            raise ScriptError(f"{_position(node)}: '{node.id}' is not available in gradcli run scripts")
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in _IMPORTS:
                    raise ScriptError(
                        f"{_position(node)}: import of '{alias.name}' refused: only torch, "
                        "torch.nn.functional, torch.autograd, math and numpy can be imported"
                    )
        if isinstance(node, ast.ImportFrom):
            if node.module not in _IMPORTS or node.level:
                raise ScriptError(
                    f"{_position(node)}: import from '{node.module}' refused: only torch, "
                    "torch.nn.functional, torch.autograd, math and numpy can be imported"
                )
            if any(alias.name == "*" for alias in node.names):
                raise ScriptError(f"{_position(node)}: 'import *' is not supported; name what you import")
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            args = node.args
            decorated = isinstance(node, ast.FunctionDef) and len(node.decorator_list) > 1
            if decorated or args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
                raise ScriptError(
                    f"{_position(node)}: only plain functions (def f(a, b=1):, lambda t: t ** 2), or one "
                    "@torch.no_grad(), are supported"
                )
        if (
            isinstance(node, (ast.For, ast.While))
            and node.orelse
            or isinstance(node, ast.Try)
            and (node.orelse or node.finalbody)
        ):
            raise ScriptError(f"{_position(node)}: else/finally clauses are not supported")
        if isinstance(node, ast.Dict) and any(key is None for key in node.keys):
            raise ScriptError(f"{_position(node)}: dict unpacking ({{**d}}) is not supported")
        if isinstance(node, ast.keyword) and node.arg is None:
            raise ScriptError(f"{_position(node)}: keyword unpacking (f(**d)) is not supported")
        if isinstance(node, ast.Constant) and isinstance(node.value, (bytes, complex)):
            raise ScriptError(f"{_position(node)}: {type(node.value).__name__} literals are not supported")
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth + 1 if isinstance(child, ast.expr) else 0))


# ---------------------------------------------------------------- the binder


class _Binder(_Parser):
    """The program parser's call binding, reporting errors at the script's own positions."""

    def __init__(self) -> None:
        super().__init__("0")

    def error(self, message: str, node: ast.AST | None = None, hint: str | None = None) -> ParseError:
        where = _position(node) + ": " if node is not None and hasattr(node, "lineno") else ""
        return ParseError(where + message + (f" (hint: {hint})" if hint else ""))


def _dotted(name: str) -> ast.expr:
    parts = name.split(".")
    node: ast.expr = ast.Name(id=parts[0], ctx=ast.Load())
    for part in parts[1:]:
        node = ast.Attribute(value=node, attr=part, ctx=ast.Load())
    return node


# ---------------------------------------------------------------- the interpreter


class Interpreter:
    def __init__(self, source: str, trace_width: int | None = None, record: bool = True) -> None:
        self.source = source
        # lines as Python's tokenizer counts them (str.splitlines also breaks at \x85, \x0c, U+2028)
        self.lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.trace_width = trace_width  # --trace: each backward call's node table, this wide
        self.record = record or trace_width is not None
        self.trace_nodes: tuple[str, ...] = ()
        self.explain_width: int | None = None  # --explain: each backward call narrated
        self.out: list[str] = []
        self.printed = 0
        self.warnings: list[str] = []
        self.warned: set[tuple[int, str]] = set()
        self.backward_calls: list[Any] = []  # BackwardCall records, then {"line": N} past the cap
        self.globals: dict[str, Any] = {}
        self.frames: list[dict[str, Any]] = []
        self.yielded: list[list] = []  # one list per running generator function
        self.closures: list[tuple[dict, ...]] = []  # per frame: the frames its def could read
        self.grad_enabled = True
        self.random = np.random.default_rng(0)  # torch.manual_seed(n) reseeds it
        self.steps = 0
        self.line = 1
        self.binder = _Binder()
        self.memory = _Memory()

    # -- running ----------------------------------------------------------------

    def run(self) -> RunResult:
        reset_print_options()  # torch.set_printoptions lasts one run
        try:
            return _with_deep_stack(self._run)
        finally:
            reset_print_options()

    def _run(self) -> RunResult:
        try:
            module = _parse(self.source)
            check(module)
            # NumPy's warnings on script values (np.float64(1) / 0) are not the script's output;
            # turned off once here rather than around each operation (they cost 3 µs each).
            runtime.reset_work()
            with _Memory(lambda: self.line) as self.memory, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.block(module.body)
        except ScriptRuntimeError as exc:
            return self.result(f"line {self.line}: {exc.kind}: {exc.message}")
        except (AutogradError, ShapeError) as exc:
            return self.result(f"line {self.line}: {_torch_kind(exc)}: {exc.message}")
        except (ScriptError, ParseError, LimitError) as exc:
            text = str(exc)
            return self.result(text if text.startswith("line ") else f"line {self.line}: {text}")
        except (_Return, _Break, _Continue):
            return self.result(
                f"line {self.line}: SyntaxError: 'return', 'break' or 'continue' outside a loop or function"
            )
        return self.result(None)

    def result(self, error: str | None) -> RunResult:
        return RunResult("".join(self.out), self.warnings, self.backward_calls, error)

    def write(self, text: str) -> None:
        self.printed += len(text)
        if self.printed > limits.Script.MAX_OUTPUT_CHARS:
            raise self.too_much_output()
        self.out.append(text)

    def too_much_output(self) -> ScriptError:
        return ScriptError(
            f"line {self.line}: the script printed more than MAX_OUTPUT_CHARS={limits.Script.MAX_OUTPUT_CHARS:,} characters"
        )

    def warn(self, message: str) -> None:
        key = (self.line, message)
        if key not in self.warned:  # Python shows a warning once per line, as torch's do
            self.warned.add(key)
            self.warnings.append(f"line {self.line}: UserWarning: {message}")

    # -- statements -------------------------------------------------------------

    def block(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        self.steps += 1
        if self.steps > limits.Script.MAX_STEPS:
            raise ScriptError(
                f"line {node.lineno}: the script ran more than MAX_STEPS={limits.Script.MAX_STEPS:,} statements"
            )
        if self.steps % 16 == 0 or runtime.allocated() > self.memory.checked + 1_000_000:
            self.memory.check(node.lineno)
        self.line = node.lineno
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Yield):
            if not self.yielded:
                raise ScriptError(f"{_position(node)}: 'yield' outside function")
            value = None if node.value.value is None else self.expr(node.value.value)
            self.yielded[-1].append(value)
            if len(self.yielded[-1]) > limits.Script.MAX_SEQUENCE:
                raise ScriptError(
                    f"line {node.lineno}: a generator yielded more than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,} values"
                )
        elif isinstance(node, ast.Expr):
            self.expr(node.value)
        elif isinstance(node, ast.Assign):
            value = self.expr(node.value)
            for target in node.targets:
                self.assign(target, value)
        elif isinstance(node, ast.AugAssign):
            self.augassign(node)
        elif isinstance(node, ast.For):
            self.for_loop(node)
        elif isinstance(node, ast.If):
            self.block(node.body if self.truth(self.expr(node.test)) else node.orelse)
        elif isinstance(node, ast.FunctionDef):
            enclosing = (self.frames[-1], *self.closures[-1]) if self.frames else ()
            self.bind(node.name, UserFunction(node, self.decorator(node), _yields(node), enclosing))
        elif isinstance(node, ast.While):
            self.while_loop(node)
        elif isinstance(node, ast.Return):
            raise _Return(None if node.value is None else self.expr(node.value))
        elif isinstance(node, ast.Try):
            self.try_block(node)
        elif isinstance(node, ast.Assert):
            if not self.truth(self.expr(node.test)):
                message = "" if node.msg is None else self.text(self.expr(node.msg))
                raise ScriptRuntimeError(message, "AssertionError")
        elif isinstance(node, ast.With):
            self.with_block(node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.bind(alias.asname, Module(_IMPORTS[alias.name]))
                else:
                    self.bind(alias.name.split(".")[0], Module(alias.name.split(".")[0]))
        elif isinstance(node, ast.ImportFrom):
            source = Module(_IMPORTS[node.module])
            for alias in node.names:
                self.bind(alias.asname or alias.name, self.attribute(source, alias.name, node))
        elif isinstance(node, ast.Break):
            raise _Break
        elif isinstance(node, ast.Continue):
            raise _Continue
        # ast.Pass: nothing

    def decorator(self, node: ast.FunctionDef) -> NoGrad | None:
        """@torch.no_grad() (or @torch.no_grad, @torch.enable_grad()): the grad mode of its calls."""
        if not node.decorator_list:
            return None
        mode = self.expr(node.decorator_list[0])
        if isinstance(mode, Function) and mode.module == "torch" and mode.name in ("no_grad", "enable_grad"):
            mode = NoGrad(enabled=mode.name == "enable_grad")
        if not isinstance(mode, NoGrad):
            raise ScriptError(f"{_position(node)}: the only decorators supported are @torch.no_grad() and @torch.enable_grad()")
        return mode

    def while_loop(self, node: ast.While) -> None:
        """while test: body, with MAX_LOOP iterations at most (a script cannot spin forever)."""
        rounds = 0
        while self.truth(self.expr(node.test)):
            rounds += 1
            if rounds > limits.Script.MAX_LOOP:
                raise ScriptError(
                    f"line {node.lineno}: a while loop ran more than MAX_LOOP={limits.Script.MAX_LOOP:,} iterations"
                )
            if not self.round_of(node.body):
                break

    def for_loop(self, node: ast.For) -> None:
        for item in self.iterable(self.expr(node.iter), node):
            self.assign(node.target, item)
            if not self.round_of(node.body):
                break

    def round_of(self, body: list[ast.stmt]) -> bool:
        """One round of a loop's body; False when it breaks out of the loop."""
        try:
            self.block(body)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    def list_comp(self, node: ast.ListComp | ast.GeneratorExp | ast.DictComp) -> list:
        """[elt for a in xs if c ...]: its names are its own, as in Python 3. A generator
        expression is made into its list: every use a script has (join, sum, max, tuple)
        consumes it whole; a dict comprehension gives its (key, value) pairs."""
        scope = self.frames[-1] if self.frames else self.globals
        names = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        saved = {n: scope[n] for n in names if n in scope}
        result: list = []

        def walk(level: int) -> None:
            if level == len(node.generators):
                self.tick(node)
                if isinstance(node, ast.DictComp):
                    result.append((self.expr(node.key), self.expr(node.value)))
                else:
                    result.append(self.expr(node.elt))
                self.check_length(result)
                return
            generator = node.generators[level]
            for item in self.iterable(self.expr(generator.iter), node):
                self.tick(node)
                self.assign(generator.target, item)
                if all(self.truth(self.expr(test)) for test in generator.ifs):
                    walk(level + 1)

        try:
            walk(0)
        finally:
            for name in names:
                if name in saved:
                    scope[name] = saved[name]
                else:
                    scope.pop(name, None)
        return result

    def tick(self, node: ast.AST) -> None:
        """One step of work that is not a statement (a comprehension's item): MAX_STEPS counts it."""
        self.steps += 1
        if self.steps > limits.Script.MAX_STEPS:
            raise ScriptError(
                f"line {node.lineno}: the script ran more than MAX_STEPS={limits.Script.MAX_STEPS:,} statements"
            )
        if self.steps % 16 == 0:
            self.memory.check(node.lineno)

    def iterable(self, items: Any, node: ast.AST) -> Any:
        """What `for` walks: a range (capped), a list, tuple or string, a tensor's rows."""
        if isinstance(items, range):
            if len(items) > limits.Script.MAX_LOOP:
                raise ScriptError(
                    f"line {node.lineno}: a loop of {len(items):,} iterations exceeds the limit MAX_LOOP={limits.Script.MAX_LOOP:,}"
                )
        elif isinstance(items, Tensor):
            items = (
                [self.index_tensor(items, i, node) for i in range(items.shape[0])] if items.shape else None
            )
            if items is None:
                raise ScriptRuntimeError("iteration over a 0-d tensor", "TypeError")
        elif isinstance(items, (dict, set)):
            items = list(items)  # a dict's keys, as Python iterates it; a set's members
        elif not isinstance(items, (list, tuple, str)):
            raise ScriptRuntimeError(f"'{self.type_name(items)}' object is not iterable", "TypeError")
        return items

    def try_block(self, node: ast.Try) -> None:
        try:
            self.block(node.body)
        except (ScriptRuntimeError, AutogradError, ShapeError) as exc:
            kind = exc.kind if isinstance(exc, ScriptRuntimeError) else _torch_kind(exc)
            for handler in node.handlers:
                names = self.handler_names(handler)
                if names is None or kind in names or "Exception" in names:
                    if handler.name:
                        self.bind(handler.name, Caught(kind, exc.message))
                    self.block(handler.body)
                    return
            raise

    def handler_names(self, handler: ast.ExceptHandler) -> set[str] | None:
        if handler.type is None:
            return None
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names = set()
        for t in types:
            if not isinstance(t, ast.Name) or t.id not in _EXCEPTIONS:
                raise ScriptError(f"{_position(t)}: except takes {', '.join(sorted(_EXCEPTIONS))}")
            names.add(t.id)
        return names

    def with_block(self, node: ast.With) -> None:
        if len(node.items) != 1 or node.items[0].optional_vars is not None:
            raise ScriptError(f"{_position(node)}: only 'with torch.no_grad():' is supported")
        manager = self.expr(node.items[0].context_expr)
        if not isinstance(manager, NoGrad):
            raise ScriptError(f"{_position(node)}: only 'with torch.no_grad():' is supported")
        previous = self.grad_enabled if manager.before is None else manager.before
        self.grad_enabled = manager.enabled
        inference, runtime.INFERENCE[0] = runtime.INFERENCE[0], manager.inference or runtime.INFERENCE[0]
        try:
            self.block(node.body)
        finally:
            self.grad_enabled = previous
            runtime.INFERENCE[0] = inference

    # -- names and assignment ---------------------------------------------------

    def bind(self, name: str, value: Any) -> None:
        (self.frames[-1] if self.frames else self.globals)[name] = value

    def lookup(self, node: ast.Name) -> Any:
        name = node.id
        if self.frames and name in self.frames[-1]:
            return self.frames[-1][name]
        for enclosing in self.closures[-1] if self.closures else ():
            if name in enclosing:  # a name of an enclosing def (a hook factory's argument)
                return enclosing[name]
        if name in self.globals:
            return self.globals[name]
        if name in _BUILTINS:
            return Function("", name)
        if name in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[name]
        if name in _FORBIDDEN_CALLS:  # a builtin the script shadows elsewhere, used unshadowed here
            raise ScriptError(f"line {self.line}: '{name}' is not available in gradcli run scripts")
        raise ScriptRuntimeError(f"name '{name}' is not defined", "NameError")

    def assign(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.sequence(value)
            if len(items) != len(target.elts):
                raise ScriptRuntimeError(
                    f"{'too many' if len(items) > len(target.elts) else 'not enough'} values to unpack "
                    f"(expected {len(target.elts)}, got {len(items)})",
                    "ValueError",
                )
            for t, v in zip(target.elts, items):
                self.assign(t, v)
        elif isinstance(target, ast.Attribute):
            self.set_attribute(self.expr(target.value), target.attr, value, target)
        elif isinstance(target, ast.Subscript):
            self.set_item(self.expr(target.value), target, value)
        else:
            raise ScriptError(f"{_position(target)}: cannot assign to this")

    def sequence(self, value: Any) -> list:
        if isinstance(value, (list, tuple)):
            return list(value)
        if isinstance(value, Tensor) and value.shape:
            return [self.index_tensor(value, i, None) for i in range(value.shape[0])]
        raise ScriptRuntimeError(f"cannot unpack non-iterable {self.type_name(value)} object", "TypeError")

    def augassign(self, node: ast.AugAssign) -> None:
        op = type(node.op)
        target = node.target
        if isinstance(target, ast.Name):
            current = self.lookup(target)
        elif isinstance(target, ast.Attribute):
            owner = self.expr(target.value)
            current = self.attribute(owner, target.attr, target)
        elif isinstance(target, ast.Subscript):
            owner = self.expr(target.value)
            current = self.subscript(owner, target)
        else:
            raise ScriptError(f"{_position(target)}: cannot assign to this")
        right = self.expr(node.value)
        if isinstance(current, Tensor):
            if op not in _BIN or op is ast.MatMult:
                raise ScriptError(f"{_position(node)}: this in-place operator is not supported on tensors")
            self.in_place(current, _BIN[op], right)
            result = current
        else:
            result = self.binop(current, op, right, node)
        if isinstance(target, ast.Name):
            self.bind(target.id, result)
        elif isinstance(target, ast.Attribute):
            self.set_attribute(owner, target.attr, result, target)
        else:  # x[i] += v: the element's new value is written back into x
            self.set_item(owner, target, result)

    # -- expressions ------------------------------------------------------------

    def expr(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Lambda):  # `lambda t: t ** 2` is `def <lambda>(t): return t ** 2`
            body = ast.copy_location(ast.Return(value=node.body), node.body)
            function = ast.copy_location(
                ast.FunctionDef(name="<lambda>", args=node.args, body=[body], decorator_list=[], returns=None),
                node,
            )
            enclosing = (self.frames[-1], *self.closures[-1]) if self.frames else ()
            return UserFunction(function, None, False, enclosing)
        if isinstance(node, ast.Name):
            return self.lookup(node)
        if isinstance(node, ast.BinOp):
            return self.binop(self.expr(node.left), type(node.op), self.expr(node.right), node)
        if isinstance(node, ast.UnaryOp):
            value = self.expr(node.operand)
            if isinstance(node.op, ast.Not):
                return not self.truth(value)
            if isinstance(value, Tensor):
                if isinstance(node.op, ast.USub):
                    return self.apply("neg", [value], {})
                if isinstance(node.op, ast.UAdd):
                    return value
                return self.registry("torch", "bitwise_not", None, [value], {}, node)
            return self.python(
                lambda: {ast.USub: lambda v: -v, ast.UAdd: lambda v: +v, ast.Invert: lambda v: ~v}[
                    type(node.op)
                ](value)
            )
        if isinstance(node, ast.BoolOp):
            value = None
            for operand in node.values:
                value = self.expr(operand)
                if self.truth(value) == isinstance(node.op, ast.Or):
                    return value
            return value
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.IfExp):
            return self.expr(node.body if self.truth(self.expr(node.test)) else node.orelse)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.expr(node.value), node.attr, node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(self.expr(node.value), node)
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(e) for e in node.elts)
        if isinstance(node, ast.List):
            return [self.expr(e) for e in node.elts]
        if isinstance(node, ast.Dict):  # {**other} is refused by check()
            pairs = [(self.expr(k), self.expr(v)) for k, v in zip(node.keys, node.values) if k is not None]
            return self.check_length(self.python(lambda: dict(pairs)))
        if isinstance(node, ast.DictComp):  # {s: i for i, s in enumerate(chars)}, as makemore writes
            pairs = self.list_comp(node)
            return self.check_length(self.python(lambda: dict(pairs)))
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):  # a generator is consumed at once
            return self.list_comp(node)
        if isinstance(node, ast.JoinedStr):
            parts, length = [], 0
            for v in node.values:
                parts.append(self.fstring_part(v))
                length += len(parts[-1])
                bounds.check_text_length(length, self.line)
            return "".join(parts)
        raise ScriptError(f"{_position(node)}: {type(node).__name__} not supported")

    def fstring_part(self, node: ast.expr) -> str:
        if isinstance(node, ast.Constant):
            return node.value
        assert isinstance(node, ast.FormattedValue)
        value = self.expr(node.value)
        if node.conversion == ord("r"):
            value = self.repr(value)
        elif node.conversion in (ord("s"), ord("a")):
            value = self.text(value)
        spec = "" if node.format_spec is None else self.expr(node.format_spec)
        return self.format(value, spec)

    def format(self, value: Any, spec: str) -> str:
        if any(len(d) > 3 for d in re.findall(r"\d+", spec)):
            raise ScriptError(f"line {self.line}: format width or precision over 999 is not supported")
        if isinstance(value, Tensor):
            if value.value.ndim == 0:
                return self.python(lambda: format(self.item(value), spec))
            if spec:
                raise ScriptRuntimeError("unsupported format string passed to Tensor.__format__", "TypeError")
            return show(value)
        if isinstance(value, (int, float, str, bool, np.generic)) or value is None:
            return self.python(lambda: format(value, spec))
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return self.python(lambda: format(value.item(), spec))
        if spec:
            raise ScriptRuntimeError(
                f"unsupported format string passed to {self.type_name(value)}.__format__", "TypeError"
            )
        return self.text(value)

    def python(self, compute):
        """A Python-level operation on script values; its errors become the script's errors."""
        try:
            result = compute()  # Python's warnings are off for the whole run (see run())
        except (ZeroDivisionError, IndexError, ValueError, TypeError, OverflowError, KeyError) as exc:
            message = str(exc)
            if isinstance(exc, ZeroDivisionError) and message == "float division by zero":
                message = "float division by zero"
            raise ScriptRuntimeError(message, type(exc).__name__) from None
        return self.check_length(result)

    def check_length(self, value: Any) -> Any:
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and value.bit_length() > limits.Script.MAX_INT_BITS
        ):
            raise ScriptError(
                f"line {self.line}: an integer of more than MAX_INT_BITS={limits.Script.MAX_INT_BITS:,} bits"
            )
        if isinstance(value, (str, list, tuple, dict)) and len(value) > limits.Script.MAX_SEQUENCE:
            raise ScriptError(
                f"line {self.line}: a string or list longer than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,}"
            )
        return value

    def binop(self, left: Any, op: type, right: Any, node: ast.AST) -> Any:
        if op is ast.Mod and isinstance(left, str):
            return self.percent_format(left, right, node)
        if isinstance(left, Tensor) or isinstance(right, Tensor):
            for side in (left, right):
                if not isinstance(side, (Tensor, int, float, bool)):
                    raise ScriptRuntimeError(
                        f"unsupported operand type(s): '{self.type_name(left)}' and '{self.type_name(right)}'",
                        "TypeError",
                    )
            if op in _BITWISE:
                return self.registry("torch", _BITWISE[op], None, [left, right], {}, node)
            if op not in _BIN:
                raise ScriptError(f"{_position(node)}: operator {op.__name__} is not supported on tensors")
            return self.apply(_BIN[op], [left, right], {})
        big_power = op is ast.Pow and isinstance(left, int) and isinstance(right, int) and right > 0
        if big_power and abs(left) > 1 and right * max(left.bit_length(), 1) > limits.Script.MAX_INT_BITS:
            raise ScriptError(
                f"{_position(node)}: an integer of more than MAX_INT_BITS={limits.Script.MAX_INT_BITS:,} bits"
            )
        if (
            op is ast.Mult
            and isinstance(left, (str, list, tuple))
            and isinstance(right, (int, np.integer))
            or (op is ast.Mult and isinstance(right, (str, list, tuple)) and isinstance(left, (int, np.integer)))
        ):
            seq, count = (left, right) if isinstance(right, (int, np.integer)) else (right, left)
            if len(seq) * int(count) > limits.Script.MAX_SEQUENCE:
                raise ScriptError(
                    f"{_position(node)}: a string or list longer than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,}"
                )
        if op not in _PY_BIN:
            raise ScriptError(f"{_position(node)}: operator {op.__name__} is not supported")
        if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
            self.check_array_result(left, right)
        return self.python(lambda: _PY_BIN[op](left, right))

    def check_array_result(self, *operands: Any) -> None:
        """NumPy arithmetic on what .numpy() gave: the broadcast result is weighed against
        MAX_ELEMENTS, MAX_SCRIPT_WORK and MAX_SCRIPT_BYTES before NumPy makes it."""
        try:
            shape = np.broadcast_shapes(*(np.shape(o) for o in operands))
        except ValueError:
            return  # NumPy's own error follows
        runtime.check_op_size("numpy", [], shape)

    def percent_format(self, template: str, args: Any, node: ast.AST) -> str:
        """'%.4f' % loss.item(), '%s' % tensor: Python's printf-style formatting of script values.
        A tensor gives its printed form to %s and %r and its number to the numeric
        conversions; widths and precisions are capped as in f-strings, `*` is refused."""
        specs = list(_PERCENT_SPEC.finditer(template))
        for spec in specs:
            for part in (spec["width"], spec["precision"]):
                if part == "*":
                    raise ScriptError(f"{_position(node)}: a '*' width or precision in %-formatting is not supported")
                if part and len(part) > 3:
                    raise ScriptError(f"line {self.line}: format width or precision over 999 is not supported")
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

    def compare(self, node: ast.Compare) -> Any:
        left = self.expr(node.left)
        result: Any = True
        for op, comparator in zip(node.ops, node.comparators):
            right = self.expr(comparator)
            kind = type(op)
            if (isinstance(left, Tensor) or isinstance(right, Tensor)) and kind in _CMP:
                value = self.apply(_CMP[kind], [left, right], {})
            else:
                if kind in (ast.In, ast.NotIn) and not isinstance(left, int):
                    bounds.check_range(right, self.line)  # 1.5 in range(n) walks the range
                if kind in (ast.In, ast.NotIn) and isinstance(right, (dict, set)):
                    if isinstance(left, _CONTAINERS):  # a key is hashed, not compared item by item
                        bounds.measure(left, self.line)
                elif isinstance(left, _CONTAINERS) or isinstance(right, _CONTAINERS):
                    bounds.measure([left, right], self.line)
                if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
                    self.check_array_result(left, right)
                value = self.python(lambda kind=kind, left=left, right=right: _PY_CMP[kind](left, right))
            if len(node.ops) == 1:
                return value
            if not self.truth(value):
                return value
            result, left = value, right
        return result

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
        return True

    # -- text -------------------------------------------------------------------

    def text(self, value: Any) -> str:
        if isinstance(value, str):
            return value
        if isinstance(value, Caught):
            return value.message
        if isinstance(value, (Device, np.ndarray, np.generic, np.dtype)):
            return str(value)  # print(t.numpy()) shows NumPy's str: [ 0.5  -1.25  3.  ]
        return self.repr(value)

    def repr(self, value: Any) -> str:
        if isinstance(value, _CONTAINERS):
            bounds.measure(value, self.line)  # the text's length and nesting, before building it
        return self.shown(value, set())

    def shown(self, value: Any, path: set[int]) -> str:
        """repr of a script value; `path` holds the containers being printed (a list that
        holds itself prints as [...], as in Python)."""
        if isinstance(value, _CONTAINERS):
            if id(value) in path:
                return "[...]" if isinstance(value, list) else "{...}" if isinstance(value, (dict, set)) else "(...)"
            path = path | {id(value)}
        if isinstance(value, Tensor):
            return show(value)
        if isinstance(value, Generated):
            return f"<generator object {value.name} at 0x7f0000000000>"
        if isinstance(value, Iterator):
            return "<list_iterator object at 0x7f0000000000>"
        if isinstance(value, list):
            return "[" + ", ".join(self.shown(v, path) for v in value) + "]"
        if isinstance(value, dict):
            return "{" + ", ".join(f"{self.shown(k, path)}: {self.shown(v, path)}" for k, v in value.items()) + "}"
        if isinstance(value, set):
            return "{" + ", ".join(self.shown(v, path) for v in value) + "}" if value else "set()"
        if isinstance(value, Size):
            return repr(value)
        if isinstance(value, Picked):
            return (
                f"torch.return_types.{value.kind}(\nvalues={self.shown(value.values, path)},\n"
                f"indices={self.shown(value.indices, path)})"
            )
        if isinstance(value, tuple):
            inner = ", ".join(self.shown(v, path) for v in value)
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        if isinstance(value, runtime.Fn):
            return grad_fn_repr(value.name)
        if isinstance(value, AccumulateGrad):
            return grad_fn_repr("AccumulateGrad")
        if isinstance(value, (str, int, float, bool, range, DType, Device, np.ndarray, np.dtype, TypeOf)):
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

    def attribute(self, owner: Any, name: str, node: ast.AST) -> Any:
        if name == "__name__":  # a class's or a function's name, nothing else
            if isinstance(owner, TypeOf):
                return owner.name.rpartition(".")[2]
            if isinstance(owner, UserFunction):
                return owner.node.name
            if isinstance(owner, Function):
                return owner.name
            raise ScriptRuntimeError(
                f"'{self.type_name(owner)}' object has no attribute '__name__'", "AttributeError"
            )
        if isinstance(owner, Picked) and name in ("values", "indices"):
            return getattr(owner, name)
        if isinstance(owner, Module):
            return self.module_attribute(owner, name, node)
        if isinstance(owner, Tensor):
            return self.tensor_attribute(owner, name, node)
        if isinstance(owner, (runtime.Fn, AccumulateGrad)):
            if name == "name":
                return Method(owner, name)
            if name == "next_functions":
                return next_functions(owner)
            if name == "variable" and isinstance(owner, AccumulateGrad):
                return owner.variable
            raise ScriptError(
                f"{_position(node)}: grad_fn has only .name(), .next_functions and .variable here"
            )
        if isinstance(owner, (list, str, Caught)) and name in ("append", "extend", "format", "join", "args"):
            if isinstance(owner, Caught) and name == "args":
                return (owner.message,)
            return Method(owner, name)
        if isinstance(owner, str) and name in _STR_METHODS or isinstance(owner, list) and name in _LIST_METHODS:
            return Method(owner, name)
        if isinstance(owner, dict) and name in ("items", "keys", "values", "get", "update"):
            return Method(owner, name)
        if isinstance(owner, (int, float)) and name in ("real", "imag"):
            return getattr(owner, name)
        if isinstance(owner, float) and name == "is_integer":
            return Method(owner, name)
        if isinstance(owner, HookHandle) and name == "remove":
            return Method(owner, name)
        if isinstance(owner, np.ndarray) and name in _NDARRAY_METHODS:
            return Method(owner, name)
        if isinstance(owner, np.ndarray) and name in ("shape", "ndim", "size", "dtype"):
            return getattr(owner, name)  # what .numpy() gave: NumPy's own tuple and numbers
        if isinstance(owner, (str, list, dict, tuple, int, float, np.ndarray)) and hasattr(type(owner), name):
            # Python (or NumPy) has it, gradcli does not: not the script's AttributeError
            raise ScriptError(f"{_position(node)}: {self.class_name(owner)}.{name} is not supported by gradcli run")
        raise ScriptRuntimeError(
            f"'{self.class_name(owner)}' object has no attribute '{name}'", "AttributeError"
        )

    def module_attribute(self, module: Module, name: str, node: ast.AST) -> Any:
        full = f"{module.name}.{name}"
        if full in (
            "torch.nn",
            "torch.autograd",
            "torch.nn.functional",
            "torch.cuda",
            "torch.backends",
            "torch.autograd.functional",
            "torch.special",
            "torch.linalg",
        ):
            return Module(full)
        if full == "torch.backends.mps":
            return Module(full)
        if full in ("torch.cuda.is_available", "torch.backends.mps.is_available", "torch.cuda.device_count"):
            return Fixed(full, False if name == "is_available" else 0)  # gradcli runs on the CPU
        if module.name == "math":
            if name in _MATH_CONSTANTS:
                return _MATH_CONSTANTS[name]
            if name in _MATH:
                return Function("math", name)
        elif module.name == "numpy":
            if name in _MATH_CONSTANTS:
                return _MATH_CONSTANTS[name]
        elif module.name == "torch":
            if name in _DTYPES:
                return DType(_DTYPES[name])
            if name in ("pi", "e", "inf", "nan"):
                return _MATH_CONSTANTS[name]
            if name in _CONSTRUCTORS or name in MODULES["torch"] or name in _PIECES or name in _POSITIONS:
                return Function("torch", name)
            if name in _RANDOM:
                raise ScriptError(
                    f"{_position(node)}: torch.{name}: random numbers are not supported (gradcli cannot "
                    "reproduce PyTorch's generator); write the values, e.g. torch.tensor([[0.5, -1.2]])"
                )
        elif module.name == "torch.autograd":
            if name in ("grad", "backward"):
                return Function("torch.autograd", name)
        elif module.name == "torch.nn" and name == "Parameter":
            return Function("torch.nn", name)
        elif module.name == "torch.autograd.functional":
            if name in ("jacobian", "hessian", "vjp", "vhp", "hvp"):
                return Function("torch.autograd.functional", name)
        elif module.name == "torch.nn.functional" and name in MODULES["F"]:
            return Function("torch.nn.functional", name)
        elif module.name in ("torch.special", "torch.linalg") and name in MODULES[module.name]:
            return Function(module.name, name)
        raise ScriptError(f"{_position(node)}: '{full}' is not supported by gradcli run (see 'gradcli ops')")

    def tensor_attribute(self, t: Tensor, name: str, node: ast.AST) -> Any:
        if t.stale_view and not t.view_of.steps and name in ("grad_fn", "requires_grad", "is_leaf", "grad"):
            t.refresh_view()  # PyTorch regenerates a view's grad_fn after its base changed in place
        if name == "grad":
            if not t.is_leaf and not t.retains_grad:
                self.warn(NON_LEAF_GRAD)
            return t._grad
        if name == "requires_grad":
            return t.requires_grad
        if name == "is_leaf":
            return t.is_leaf
        if name == "grad_fn":
            return t.grad_fn
        if name == "data":
            return Tensor.alias(t, share_version=False)  # changes through .data go unseen by autograd
        if name == "shape":
            return Size(t.shape)
        if name == "dtype":
            return DType(t.dtype)
        if name == "ndim":
            return t.value.ndim
        if name == "device":
            return Device()
        if name == "T" or (name == "mT" and t.value.ndim <= 2):
            return self.apply("T", [t], {})
        if name == "mT":  # the last two dims of a batch: transpose(-2, -1)
            return self.apply("transpose", [t], {"dim0": -2, "dim1": -1})
        if name == "_version":  # the version counter: in-place writes to this tensor or its views
            if t.inference:
                raise ScriptRuntimeError("Inference tensors do not track version counter.")
            return t.version.value
        if name in _FALSE_PROPERTIES:  # a CPU tensor, dense, not quantized
            return False
        if name == "itemsize":
            return t.value.itemsize
        if name == "nbytes":
            return t.value.nbytes
        if name == "_base":  # the tensor a view was taken of (None for detach() and .data)
            return t.view_of
        if name not in _tensor_methods():
            # never a bound method to print or test for truth: x.is_cuda must not read as True
            raise ScriptError(f"{_position(node)}: x.{name} is not supported by gradcli run (see 'gradcli ops')")
        return Method(t, name)

    def set_attribute(self, owner: Any, name: str, value: Any, node: ast.AST) -> None:
        if not isinstance(owner, Tensor):
            raise ScriptError(
                f"{_position(node)}: only a tensor's .grad, .requires_grad and .data can be set"
            )
        if name == "grad":
            if value is not None:
                if not isinstance(value, Tensor):
                    raise ScriptRuntimeError(
                        "assigned grad expected to be a Tensor or None but got grad of "
                        f"type {self.type_name(value)}",
                        "TypeError",
                    )
                if value.shape != owner.shape:
                    raise ScriptRuntimeError("assigned grad has data of a different size")
            owner._grad = value
        elif name == "requires_grad":
            owner.set_requires_grad(self.truth(value))
        elif name == "data":
            if not isinstance(value, Tensor):
                raise ScriptRuntimeError("data must be a Tensor", "TypeError")
            owner.rebind(value)
        else:
            raise ScriptError(
                f"{_position(node)}: only a tensor's .grad, .requires_grad and .data can be set"
            )

    # -- calls ----------------------------------------------------------------------

    def call(self, node: ast.Call) -> Any:
        func = self.expr(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):  # print(*x.shape), f(*args): the sequence's items
                items = self.sequence_of(self.expr(a.value))
                if not isinstance(items, list):
                    raise ScriptRuntimeError("argument after * must be an iterable", "TypeError")
                args.extend(items)
                continue
            args.append(self.expr(a))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise ScriptError(f"{_position(kw.value)}: '**' arguments are not supported")
            kwargs[kw.arg] = self.expr(kw.value)
        if isinstance(func, UserFunction):
            return self.call_user(func, args, kwargs, node)
        try:
            return self.dispatch(func, args, kwargs, node)
        except _ARGUMENT_SLIPS as exc:
            # gradcli's own code met an argument of a kind it does not take (x.add(None),
            # x.sum(dim=x)): torch's argument parser refuses these with a TypeError
            raise ScriptRuntimeError(_invalid_arguments(func, args, kwargs, self.type_name), "TypeError") from exc
        except ParseError as exc:
            message = re.sub(r" \(hint: .*\)$", "", _ERROR_PLACE.sub("", exc.message))  # torch's words only
            kinds = [kind for word, kind in _BINDER_ARGUMENT_WORDS.items() if word in message]
            if not kinds:
                raise
            raise ScriptRuntimeError(message, kinds[0]) from None

    def dispatch(self, func: Any, args: list, kwargs: dict, node: ast.Call) -> Any:
        """A call of a builtin, a torch function or a method, its arguments evaluated."""
        if isinstance(func, Function):
            if func.module == "":
                return self.builtin(func.name, args, kwargs, node)
            if func.module == "math":
                values = [self.item(a) if isinstance(a, Tensor) else a for a in args]
                return self.python(lambda: _MATH[func.name](*values, **kwargs))
            if func.module == "torch.autograd":
                return self.autograd_call(func.name, args, kwargs, node)
            if func.module == "torch.nn" and func.name == "Parameter":
                return self.parameter(args, kwargs)
            if func.module == "torch.autograd.functional":
                return self.functional(func.name, args, kwargs, node)
            if func.module == "torch" and func.name in _CONSTRUCTORS:
                return self.construct(func.name, args, kwargs, node)
            if func.module == "torch" and func.name in _POSITIONS or (
                func.module == "torch" and func.name == "where" and len(args) == 1 and not kwargs
            ):
                if not args or not isinstance(args[0], Tensor):
                    raise ScriptRuntimeError(f"{func.name}(): argument 'input' must be Tensor", "TypeError")
                return self.positions(func.name, args[0], args[1:], kwargs)
            if func.module == "torch" and func.name in _PIECES:
                if not args or not isinstance(args[0], Tensor):
                    raise ScriptRuntimeError(f"{func.name}(): argument 'input' must be Tensor", "TypeError")
                return self.pieces(func.name, args[0], args[1:], kwargs)
            return self.registry(func.module, func.name, None, args, kwargs, node)
        if isinstance(func, Method):
            return self.method(func.receiver, func.name, args, kwargs, node)
        if isinstance(func, Fixed):
            if args or kwargs:
                raise ScriptRuntimeError(f"{func.name}() takes no arguments", "TypeError")
            return func.value
        raise ScriptRuntimeError(f"'{self.type_name(func)}' object is not callable", "TypeError")

    def call_user(self, func: UserFunction, args: list, kwargs: dict, node: ast.AST) -> Any:
        if len(self.frames) >= limits.Script.MAX_CALL_DEPTH:
            raise ScriptError(
                f"line {self.line}: calls nested deeper than the limit MAX_CALL_DEPTH={limits.Script.MAX_CALL_DEPTH}"
            )
        spec = func.node.args
        names = [a.arg for a in spec.args]
        if len(args) > len(names):
            raise ScriptRuntimeError(
                f"{func.node.name}() takes {len(names)} positional arguments but {len(args)} were given",
                "TypeError",
            )
        frame: dict[str, Any] = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names or key in frame:
                raise ScriptRuntimeError(
                    f"{func.node.name}() got an unexpected keyword argument '{key}'", "TypeError"
                )
            frame[key] = value
        defaults = spec.defaults
        for name, default in zip(names[len(names) - len(defaults) :], defaults):
            if name not in frame:
                frame[name] = self.expr(default)
        missing = [n for n in names if n not in frame]
        if missing:
            raise ScriptRuntimeError(
                f"{func.node.name}() missing required positional argument: '{missing[0]}'", "TypeError"
            )
        line = self.line
        self.frames.append(frame)
        self.closures.append(func.closure)
        previous = self.grad_enabled
        if func.grad_mode is not None:
            self.grad_enabled = func.grad_mode.enabled
        if func.generator:
            self.yielded.append([])
        try:
            self.block(func.node.body)
            value = None
        except _Return as ret:
            value = ret.value
        finally:
            self.frames.pop()
            self.closures.pop()
            self.grad_enabled = previous
            values = self.yielded.pop() if func.generator else None
        self.line = line
        if values is not None:
            return Generated(values, func.node.name)
        return value

    def builtin(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if name == "print":
            sep = kwargs.pop("sep", " ")
            end = kwargs.pop("end", "\n")
            if kwargs:
                raise ScriptError(f"{_position(node)}: print() takes only sep= and end= here")
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
                bounds.check_sort(args[0] if len(args) == 1 and isinstance(args[0], list) else list(args), self.line)
        if name == "round" and len(args) == 2 and all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            number, digits = args
            if digits < -(number.bit_length() * 10 // 33 + 2):  # fewer digits than the number has
                return 0  # Python's answer, without building 10**-digits

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
                raise ScriptError(f"{_position(node)}: iter() takes one sequence here")
            return args[0] if isinstance(args[0], Iterator) else Iterator(self.sequence_of(args[0]))
        if name == "next":
            if not args or not isinstance(args[0], Iterator):
                raise ScriptRuntimeError(
                    f"'{self.type_name(args[0]) if args else 'nothing'}' object is not an iterator", "TypeError"
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
                raise ScriptError(f"{_position(node)}: type() takes one value here")
            return TypeOf(self.class_name(args[0]))
        if name in ("min", "max") and (
            any(isinstance(a, Tensor) for a in args)
            or (len(args) == 1 and isinstance(args[0], (list, tuple)) and any(isinstance(a, Tensor) for a in args[0]))
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
            mine = self.class_name(args[0])
            # bool is an int subclass, as in Python, and a Parameter a Tensor
            bases = {"bool": "int", "torch.nn.parameter.Parameter": "torch.Tensor"}
            return any(self.named_class(c) in (mine, bases.get(mine, mine)) for c in classes)
        impl = {"float": float, "int": int, "bool": bool, "round": round, "abs": abs, "min": min, "max": max}[
            name
        ]
        if any(isinstance(a, Tensor) for a in args):
            raise ScriptError(f"{_position(node)}: {name}() of a tensor is not supported here")
        return self.python(lambda: impl(*args, **kwargs))

    def moments(self, name: str, t: Tensor, args: list, kwargs: dict) -> tuple:
        """torch.var_mean / std_mean: (var or std, mean) over the same dims, each named as the
        one node torch records for both (VarMeanBackward0, StdMeanBackward0)."""
        node = ast.Constant(value=None, lineno=self.line, col_offset=0, end_lineno=self.line, end_col_offset=0)
        rest = args
        dim = kwargs.get("dim", rest[0] if rest and not isinstance(rest[0], bool) else None)
        keepdim = kwargs.get("keepdim", rest[2] if len(rest) >= 3 else False)
        spread = self.registry("torch", name[:3], None, [t, *args], kwargs, node)
        given = {"keepdim": keepdim} | ({} if dim is None else {"dim": dim})
        mean = self.registry("torch", "mean", None, [t], given, node)
        return self._named([spread, mean], f"{name[:3].capitalize()}MeanBackward0")

    def parameter(self, args: list, kwargs: dict) -> Tensor:
        """torch.nn.Parameter(data, requires_grad=True): a leaf on data's elements (and version
        counter, as torch's detach() shares it) that prints as 'Parameter containing:'."""
        data, requires_grad = self.signature("Parameter", args, kwargs, ("data", "requires_grad"))
        if data is None:
            data = Tensor(np.zeros(0, dtype=np.float32))
        if not isinstance(data, Tensor):
            raise ScriptRuntimeError(
                f"Parameter(): argument 'data' must be Tensor, not {self.type_name(data)}", "TypeError"
            )
        wants = True if requires_grad is None else self.truth(requires_grad)
        if wants and data.dtype not in ("float32", "float64"):
            raise ScriptRuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        made = Tensor.alias(data)
        made.requires_grad, made.grad_fn = wants, None
        made.parameter = True
        return made

    def pieces(self, name: str, t: Tensor, args: list, kwargs: dict) -> tuple:
        """x.chunk(n, dim), x.split(size or sizes, dim), x.unbind(dim): a tuple of views, each
        with the grad_fn torch names for the call (SplitBackward0, SplitWithSizesBackward0,
        UnbindBackward0); their gradients go back through the slices they are."""
        if name in ("var_mean", "std_mean"):
            return self.moments(name, t, args, kwargs)
        names = {
            "chunk": ("chunks", "dim"),
            "split": ("split_size_or_sections", "dim"),
            "unbind": ("dim",),
            "tensor_split": ("indices_or_sections", "dim"),
        }[name]
        given = dict(zip(names, args)) | kwargs
        if len(args) > len(names) or any(k not in names for k in given):
            raise ScriptRuntimeError(f"{name}() got an unexpected argument", "TypeError")
        ndim = max(t.value.ndim, 1)
        if not t.shape:
            raise ScriptRuntimeError(f"{name} expects at least a 1-dimensional tensor")
        dim = _dim_index(given.get("dim", 0), ndim)
        size = t.shape[dim]
        if name == "unbind":
            parts = [self.apply("select", [t], {"dim": dim, "index": i}) for i in range(size)]
            return self._named(parts, "UnbindBackward0")
        if name == "tensor_split":  # NumPy's array_split: plain slices, SliceBackward0 each
            return tuple(self.apply("slice", [t], {"dim": dim, "start": a, "end": b, "step": 1}) for a, b in
                         _tensor_split_bounds(given.get("indices_or_sections"), size))
        if name == "chunk":
            chunks = given.get("chunks")
            if not isinstance(chunks, int) or isinstance(chunks, bool) or chunks <= 0:
                raise ScriptRuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
            step = -(-size // chunks) if size else 1
            sizes = [min(step, size - start) for start in range(0, size, step)] or [0]
            grad_fn = "SplitBackward0"
        else:
            sections = given.get("split_size_or_sections")
            if isinstance(sections, int) and not isinstance(sections, bool) and sections > 0:
                sizes = [min(sections, size - start) for start in range(0, size, sections)] or [0]
                grad_fn = "SplitBackward0"
            elif isinstance(sections, (list, tuple)) and all(isinstance(n, int) and n >= 0 for n in sections):
                if sum(sections) != size:
                    raise ScriptRuntimeError(
                        f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                        f"dimension {dim}), but got split_sizes={list(sections)}"
                    )
                sizes, grad_fn = list(sections), "SplitWithSizesBackward0"
            else:
                raise ScriptRuntimeError("split(): split_size_or_sections must be an int or a list of ints", "TypeError")
        if len(sizes) > limits.Script.MAX_SEQUENCE:
            raise ScriptError(f"line {self.line}: more than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,} pieces")
        parts, start = [], 0
        for n in sizes:
            parts.append(self.apply("slice", [t], {"dim": dim, "start": start, "end": start + n, "step": 1}))
            start += n
        return self._named(parts, grad_fn)

    def positions(self, name: str, t: Tensor, args: list, kwargs: dict) -> Any:
        """torch.where(cond), x.nonzero() and torch.argwhere(x): int64 positions of the
        nonzero elements, as one tensor per dim (as_tuple) or as rows."""
        as_tuple = name == "where" or bool(kwargs.pop("as_tuple", False))
        if args or kwargs:
            raise ScriptRuntimeError(f"{name}() got an unexpected argument", "TypeError")
        if not t.shape:  # a 0-d tensor: one position of no dims, or none
            count = int(bool(t.value.reshape(()) != 0))
            if as_tuple:
                return (Tensor(np.zeros(count, np.int64), dtype="int64"),)
            return Tensor(np.zeros((count, 0), np.int64), dtype="int64")
        found = np.nonzero(t.value)
        if as_tuple:
            return tuple(Tensor(np.asarray(i, dtype=np.int64), dtype="int64") for i in found)
        return Tensor(np.stack(found, axis=1).astype(np.int64), dtype="int64")

    @staticmethod
    def _named(parts: list, grad_fn: str) -> tuple:
        for part in parts:
            if isinstance(part, Tensor) and isinstance(part.grad_fn, runtime.Fn):
                part.grad_fn.name = grad_fn
        return tuple(parts)

    def extreme(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        """Python's max()/min() over tensors: the first item no later one beats, compared by
        `>` (`<`) and the truth of the result, so a tensor of several elements is torch's error."""
        if kwargs:
            raise ScriptError(f"{_position(node)}: {name}() over tensors takes no key= or default= here")
        items = self.sequence(args[0]) if len(args) == 1 else list(args)
        if not items:
            raise ScriptRuntimeError(f"{name}() arg is an empty sequence", "ValueError")
        beats = ast.Gt if name == "max" else ast.Lt
        best = items[0]
        for item in items[1:]:
            if isinstance(item, Tensor) or isinstance(best, Tensor):
                better = self.apply(_CMP[beats], [item, best], {})
            else:
                better = self.python(lambda item=item, best=best: _PY_CMP[beats](item, best))
            if self.truth(better):
                best = item
        return best

    def named_class(self, value: Any) -> str:
        """The class a script names in isinstance(v, torch.Tensor) / (int, float)."""
        if isinstance(value, Function) and value.module == "torch" and value.name == "Tensor":
            return "torch.Tensor"
        if isinstance(value, Function) and value.module == "" and value.name in _CLASSES:
            return value.name
        if isinstance(value, TypeOf):
            return value.name
        raise ScriptRuntimeError("isinstance() arg 2 must be a type, a tuple of types, or a union", "TypeError")

    def class_name(self, value: Any) -> str:
        """type(value)'s name as Python prints it for the torch object it stands for."""
        if isinstance(value, Tensor):
            return "torch.nn.parameter.Parameter" if _is_parameter(value) else "torch.Tensor"
        if isinstance(value, Size):
            return "torch.Size"
        if isinstance(value, Picked):
            return f"torch.return_types.{value.kind}"
        if isinstance(value, DType):
            return "torch.dtype"
        if isinstance(value, Device):
            return "torch.device"
        if isinstance(value, np.ndarray):
            return "numpy.ndarray"
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

    def sequence_of(self, value: Any) -> list:
        if isinstance(value, range):
            if len(value) > limits.Script.MAX_SEQUENCE:
                raise ScriptError(
                    f"line {self.line}: a sequence longer than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,}"
                )
            return list(value)
        if isinstance(value, (list, tuple, str, dict, set)):
            return list(value)
        if isinstance(value, int):
            return value  # enumerate(xs, 1)'s start
        return self.sequence(value)

    # -- tensors: construction -------------------------------------------------------------

    def dtype_of(self, kwargs: dict, default: str | None) -> str | None:
        dtype = kwargs.pop("dtype", None)
        if dtype is None:
            return default
        if not isinstance(dtype, DType):
            raise ScriptRuntimeError("dtype must be a torch dtype such as torch.float64", "TypeError")
        return dtype.name

    def device(self, spec: Any) -> Device:
        """A device from torch.device(...), .to(...) or device=: cpu, or a named accelerator."""
        if isinstance(spec, Device):
            return spec
        if not isinstance(spec, (str, int)) or isinstance(spec, bool):
            raise ScriptRuntimeError(f"argument 'device' must be torch.device, not {self.type_name(spec)}", "TypeError")
        kind = spec.split(":")[0] if isinstance(spec, str) else None
        if kind not in ("cpu", "cuda", "mps"):
            raise ScriptRuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
                f"xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {spec}"
            )
        return Device(kind)

    def on_cpu(self, spec: Any) -> None:
        """Tensors live on the CPU here; moving one to cuda is torch's error without CUDA."""
        if spec is not None and self.device(spec).kind != "cpu":
            raise ScriptRuntimeError(NO_CUDA, "AssertionError")

    def finish(self, value: np.ndarray, dtype: str, kwargs: dict, name: str, node: ast.AST) -> Tensor:
        requires_grad = bool(kwargs.pop("requires_grad", False))
        self.on_cpu(kwargs.pop("device", None))
        if kwargs:
            raise ScriptRuntimeError(
                f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'", "TypeError"
            )
        if value.size > limits.MAX_ELEMENTS:
            raise ScriptError(f"{_position(node)}: a tensor of {value.size:,} elements exceeds MAX_ELEMENTS")
        t = Tensor(np.asarray(value).astype(dtype), dtype=dtype)
        if requires_grad:
            t.set_requires_grad(True)
        return t

    def sizes(self, args: list, node: ast.AST) -> tuple[int, ...]:
        shape = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else tuple(args)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in shape):
            raise ScriptRuntimeError("size must be integers", "TypeError")
        runtime.check_shape(shape)
        if math.prod(shape) > limits.MAX_ELEMENTS:
            raise ScriptError(
                f"{_position(node)}: a tensor of {math.prod(shape):,} elements exceeds "
                f"MAX_ELEMENTS={limits.MAX_ELEMENTS:,}"
            )
        return shape

    def data_of(self, data: Any, node: ast.AST) -> np.ndarray:
        """torch.tensor's data: numbers, nested lists of numbers (or one-element tensors)."""
        bounds.measure(data, self.line)  # nesting and size before the recursive walk

        def plain(v):
            if isinstance(v, Tensor):
                return v.value.tolist()
            if isinstance(v, (list, tuple)):
                return [plain(x) for x in v]
            if isinstance(v, (int, float, bool)):
                return v
            if isinstance(v, np.ndarray):
                return v.tolist()
            raise ScriptRuntimeError(f"Could not infer dtype of {self.type_name(v)}", "TypeError")

        values = plain(data)
        flat, pending = [], [values]
        while pending:  # measured above: at most MAX_SEQUENCE items
            item = pending.pop()
            if isinstance(item, list):
                pending.extend(item)
            else:
                flat.append(item)
        if not any(isinstance(v, float) for v in flat) and any(
            not isinstance(v, bool) and not -(2**63) <= v < 2**63 for v in flat
        ):
            raise ScriptRuntimeError("Overflow when unpacking long long", "ValueError")
        try:
            array = np.array(values)
        except ValueError:
            raise ScriptRuntimeError("expected sequence of equal-length lists", "ValueError") from None
        return array.astype(np.float64) if array.dtype.kind in "uO" else array

    def closeness(self, name: str, args: list, kwargs: dict) -> Any:
        """torch.allclose / isclose / equal, as aten's isclose computes them: equal, or finite
        and |a - b| <= atol + |rtol * b|, in the tensors' own dtype."""
        params = {"rtol": 1e-05, "atol": 1e-08, "equal_nan": False}
        if name == "equal":
            params = {}
        names = ["input", "other", *params]
        if len(args) > len(names) or any(k not in names for k in kwargs):
            raise ScriptRuntimeError(f"{name}() got an unexpected argument", "TypeError")
        given = dict(zip(names, args)) | kwargs
        a, b = given.get("input"), given.get("other")
        if not isinstance(a, Tensor) or not isinstance(b, Tensor):
            raise ScriptRuntimeError(f"{name}(): arguments 'input' and 'other' must be Tensor", "TypeError")
        if name == "equal":
            return a.shape == b.shape and bool(np.array_equal(a.value, b.value))
        if a.dtype != b.dtype:
            raise ScriptRuntimeError(f"{_TORCH_TYPE[a.dtype]} did not match {_TORCH_TYPE[b.dtype]}")
        rtol, atol = float(given.get("rtol", 1e-05)), float(given.get("atol", 1e-08))
        x, y = a.value, b.value
        if x.dtype.kind in "biu":  # integers compare as the default float dtype
            x, y = x.astype(np.float32), y.astype(np.float32)
        with np.errstate(all="ignore"):
            close = x == y
            if given.get("equal_nan", False):
                close = close | (np.isnan(x) & np.isnan(y))
            if rtol or atol:
                error = np.abs(x - y)
                close = close | (np.isfinite(error) & (error <= atol + np.abs(rtol * y)))
        if name == "allclose":
            return bool(np.all(close))
        return Tensor(np.asarray(close, dtype=bool), dtype="bool")

    def construct(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        _check_keywords(name, kwargs, _CONSTRUCTOR_KEYWORDS, "torch.")
        if name == "manual_seed" and "seed" in kwargs and not args:
            args = [kwargs.pop("seed")]
        if name in ("no_grad", "enable_grad"):
            return NoGrad(name == "enable_grad")
        if name == "set_grad_enabled":  # switches at once; as a `with`, restores on exit
            before, self.grad_enabled = self.grad_enabled, self.truth(args[0])
            return NoGrad(self.grad_enabled, before)
        if name == "is_grad_enabled":
            return self.grad_enabled
        if name == "set_printoptions":
            names = ("precision", "threshold", "edgeitems", "linewidth", "profile", "sci_mode")
            given = dict(zip(names, args)) | kwargs
            if len(args) > len(names) or any(k not in names for k in given):
                raise ScriptRuntimeError("set_printoptions() got an unexpected argument", "TypeError")
            for key in ("precision", "threshold", "edgeitems", "linewidth"):
                value = given.get(key)
                if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                    raise ScriptRuntimeError(f"set_printoptions(): {key} must be a whole number", "TypeError")
            if given.get("precision") is not None and given["precision"] > 100:
                raise ScriptError(f"{_position(node)}: set_printoptions(precision=...) above 100 is refused")
            try:
                set_print_options(**given)
            except ValueError as exc:
                raise ScriptRuntimeError(str(exc), "ValueError") from None
            return None
        if name == "inference_mode":  # for what a script can see, no_grad
            if args and not self.truth(args[0]) or kwargs.get("mode") is False:
                return NoGrad(self.grad_enabled)
            return NoGrad(False, inference=True)
        if name == "Size":
            if len(args) > 1 or kwargs:
                raise ScriptRuntimeError("Size() takes at most 1 argument", "TypeError")
            sizes = self.sequence_of(args[0]) if args else []
            if not all(isinstance(n, int) and not isinstance(n, bool) for n in sizes):
                raise ScriptRuntimeError("torch.Size() takes an iterable of 'int'", "TypeError")
            return Size(sizes)
        if name in ("allclose", "isclose", "equal"):
            return self.closeness(name, args, kwargs)
        if name == "is_tensor":
            return isinstance(args[0], Tensor)
        if name == "numel":
            return int(args[0].value.size)
        if name in ("tensor", "Tensor", "FloatTensor", "DoubleTensor", "LongTensor"):
            if len(args) != 1:
                if name != "tensor" and all(isinstance(a, int) for a in args):
                    raise ScriptError(
                        f"{_position(node)}: torch.{name}(sizes) is uninitialised memory; "
                        "use torch.zeros(sizes)"
                    )
                raise ScriptRuntimeError(f"{name}() takes 1 positional argument", "TypeError")
            data = args[0]
            if name != "tensor" and isinstance(data, (int, float)) and not isinstance(data, bool):
                if isinstance(data, int):
                    raise ScriptError(
                        f"{_position(node)}: torch.{name}(n) is uninitialised memory; use torch.zeros(n)"
                    )
                raise ScriptRuntimeError(f"{name}(): argument 'size' must be a tuple of ints", "TypeError")
            array = self.data_of(data, node)
            fixed = {
                "Tensor": "float32",
                "FloatTensor": "float32",
                "DoubleTensor": "float64",
                "LongTensor": "int64",
            }.get(name)
            inferred = "bool" if array.dtype == bool else "int64" if array.dtype.kind in "iu" else "float32"
            dtype = self.dtype_of(kwargs, fixed or inferred)
            return self.finish(array, dtype, kwargs, name, node)
        if name in ("zeros", "ones", "empty"):  # torch.empty holds whatever memory held: zeros here
            if not args and "size" in kwargs:  # torch.zeros(size=(2, 1))
                args = [kwargs.pop("size")]
            shape = self.sizes(args, node)
            dtype = self.dtype_of(kwargs, "float32")
            return self.finish((np.ones if name == "ones" else np.zeros)(shape), dtype, kwargs, name, node)
        if name == "full":
            if len(args) != 2:
                raise ScriptRuntimeError("full() takes a size and a fill_value", "TypeError")
            shape = self.sizes([args[0]], node)
            fill = args[1]
            if isinstance(fill, Tensor) and fill.value.ndim == 0:
                fill = self.item(fill)
            if not isinstance(fill, (int, float)):
                raise ScriptRuntimeError(
                    f"full(): argument 'fill_value' (position 2) must be Number, not {self.type_name(fill)}",
                    "TypeError",
                )
            if isinstance(fill, int) and not -(2**63) <= fill < 2**63:
                if fill.bit_length() > 64:
                    raise ScriptRuntimeError("int too big to convert", "OverflowError")
                raise ScriptRuntimeError("value cannot be converted to type int64_t without overflow")
            default = "bool" if isinstance(fill, bool) else "int64" if isinstance(fill, int) else "float32"
            dtype = self.dtype_of(kwargs, default)
            return self.finish(np.full(shape, fill), dtype, kwargs, name, node)
        if name == "eye":
            n, m = (args + [None])[:2] if len(args) <= 2 else (None, None)
            shape = self.sizes([n, n if m is None else m], node)
            return self.finish(np.eye(*shape), self.dtype_of(kwargs, "float32"), kwargs, name, node)
        if name == "arange":
            if not 1 <= len(args) <= 3:
                raise ScriptRuntimeError("arange() takes 1 to 3 numbers", "TypeError")
            values = [self.item(a) if isinstance(a, Tensor) else a for a in args]
            start, end, step = (0, values[0], 1) if len(values) == 1 else (*values, 1)[:3]
            if not all(isinstance(v, (int, float)) for v in (start, end, step)):
                raise ScriptRuntimeError("arange() received an invalid combination of arguments", "TypeError")
            if not all(math.isfinite(v) for v in (start, end, step)):
                raise ScriptRuntimeError(f"unsupported range: {start} -> {end}")
            if step == 0:
                raise ScriptRuntimeError("step must be nonzero")
            count = max(0, math.ceil((end - start) / step))
            if count > limits.MAX_ELEMENTS:
                raise ScriptError(f"{_position(node)}: arange of {count:,} elements exceeds MAX_ELEMENTS")
            integral = all(isinstance(v, int) for v in values)
            dtype = self.dtype_of(kwargs, "int64" if integral else "float32")
            kind = dtype if dtype in ("float32", "float64") else "float64"
            array = np.arange(start, end, step) if integral else arange_values(start, end, step, kind)
            return self.finish(array, dtype, kwargs, name, node)
        if name == "linspace":
            if len(args) != 3 and "steps" not in kwargs:
                raise ScriptRuntimeError("linspace() takes start, end and steps", "TypeError")
            steps = args[2] if len(args) > 2 else kwargs.pop("steps")
            self.sizes([steps], node)
            dtype = self.dtype_of(kwargs, "float32")
            kind = dtype if dtype in ("float32", "float64") else "float64"
            return self.finish(linspace_values(args[0], args[1], steps, kind), dtype, kwargs, name, node)
        if name == "device":  # torch.device("cpu"), torch.device("cuda" if ... else "cpu")
            if len(args) != 1 or kwargs or not isinstance(args[0], (str, Device)):
                raise ScriptRuntimeError("device() takes a device name such as 'cpu'", "TypeError")
            return self.device(args[0])
        if name == "manual_seed":
            if len(args) != 1 or not isinstance(args[0], int) or isinstance(args[0], bool):
                raise ScriptRuntimeError("manual_seed() takes one integer seed", "TypeError")
            self.random = np.random.default_rng(args[0] % 2**64)
            return None
        if name in ("rand", "randn"):
            if not args and "size" in kwargs:  # torch.randn(size=(), requires_grad=True)
                args = [kwargs.pop("size")]
            shape = self.sizes(args, node)
            draw = self.random.random if name == "rand" else self.random.standard_normal
            return self.finish(draw(shape), self.dtype_of(kwargs, "float32"), kwargs, name, node)
        if name in ("rand_like", "randn_like"):
            source = args[0] if args else None
            if not isinstance(source, Tensor):
                raise ScriptRuntimeError(f"{name}(): argument 'input' must be Tensor", "TypeError")
            draw = self.random.random if name == "rand_like" else self.random.standard_normal
            dtype = self.dtype_of(kwargs, source.dtype)
            return self.finish(draw(source.shape), dtype, kwargs, name, node)
        if name == "randint":
            if not 2 <= len(args) <= 3 or not isinstance(args[-1], (tuple, list)):
                raise ScriptRuntimeError("randint() takes (low, high, size) or (high, size)", "TypeError")
            low, high = (0, args[0]) if len(args) == 2 else (args[0], args[1])
            if any(isinstance(v, int) and not -(2**63) <= v < 2**63 for v in (low, high)):
                raise ScriptRuntimeError("Overflow when unpacking long long", "ValueError")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)) or high <= low:
                raise ScriptRuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
            shape = self.sizes([args[-1]], node)
            return self.finish(self.random.integers(low, high, shape), self.dtype_of(kwargs, "int64"), kwargs, name, node)
        if name in ("zeros_like", "ones_like", "empty_like", "full_like"):
            source = args[0] if args else None
            if not isinstance(source, Tensor):
                raise ScriptRuntimeError(f"{name}(): argument 'input' must be Tensor", "TypeError")
            fill = {"zeros_like": 0, "ones_like": 1, "empty_like": 0}.get(
                name, args[1] if len(args) > 1 else kwargs.pop("fill_value", 0)
            )
            dtype = self.dtype_of(kwargs, source.dtype)
            return self.finish(np.full(source.shape, fill), dtype, kwargs, name, node)
        raise ScriptError(f"{_position(node)}: torch.{name} is not supported")

    # -- tensors: the registry ------------------------------------------------------------

    def apply(self, name: str, operands: list, attrs: dict) -> Tensor:
        from ..ops import REGISTRY

        op = REGISTRY[name]
        _check_unpackable(operands)
        full = {p.name: p.default for p in op.params}
        full.update(attrs)
        return self.rewritten(name, operands, full) or apply_op(name, operands, full, self.grad_enabled)

    def rewritten(self, name: str, operands: list, attrs: dict) -> Tensor | None:
        """The nodes torch records for these shapes where the registry has a rewrite (v @ W,
        A @ B of 3-D: ops/products.py), or None to record the op itself."""
        rewrite = REWRITES.get(name)
        if rewrite is None:
            return None
        return rewrite(
            lambda op_name, *args, **given: self.apply(op_name, list(args), given),
            *operands,
            shapes=tuple(o.shape if isinstance(o, Tensor) else () for o in operands),
            strides=tuple(runtime.element_strides(o) if isinstance(o, Tensor) else None for o in operands),
            grads=tuple(isinstance(o, Tensor) and o.requires_grad for o in operands),
            **attrs,
        )

    def evaluate(self, expr: Any) -> Any:
        """An Apply tree from the binder, with the script's values at its leaves."""
        if isinstance(expr, Apply):
            operands = [self.evaluate(a) for a in expr.args]
            if not any(isinstance(o, Tensor) for o in operands):
                raise ScriptRuntimeError(
                    f"{expr.op}(): argument 'input' must be Tensor, not "
                    f"{self.type_name(operands[0]) if operands else 'nothing'}",
                    "TypeError",
                )
            try:
                if expr.subscript is not None and isinstance(operands[0], Tensor):
                    check_subscript(expr.subscript, operands[0].shape)
                return self.rewritten(expr.op, operands, dict(expr.attrs)) or apply_op(
                    expr.op, operands, dict(expr.attrs), self.grad_enabled
                )
            except IndexOutOfRange as exc:
                raise IndexOutOfRange(index_place(exc.message, expr.subscript)) from None
        if isinstance(expr, Num):
            return expr.value
        return expr

    def literal(self, value: Any, mapping: dict, node: ast.AST) -> ast.expr:
        """A value as the binder reads it: a literal, or a placeholder name for a tensor."""
        if isinstance(value, Tensor):
            placeholder = ast.Name(id=f"t{len(mapping)}", ctx=ast.Load())
            mapping[id(placeholder)] = value
            return placeholder
        if isinstance(value, (list, tuple)) and not isinstance(value, Size) or isinstance(value, Size):
            elts = [self.literal(v, mapping, node) for v in value]
            return ast.Tuple(elts=elts, ctx=ast.Load())
        if isinstance(value, (int, float, str, bool)) or value is None:
            constant = ast.Constant(value=value)
            mapping[id(constant)] = value
            return constant
        if isinstance(value, DType):
            raise ScriptError(
                f"{_position(node)}: dtype= is not supported here; convert with .double() first"
            )
        raise ScriptRuntimeError(f"unsupported argument of type {self.type_name(value)}", "TypeError")

    def registry(
        self, module: str, name: str, receiver: Tensor | None, args: list, kwargs: dict, node: ast.AST
    ) -> Any:
        _check_tensor_arguments(name, receiver is not None, args, kwargs, self.type_name)
        misplaced = [i for i, a in enumerate(args) if isinstance(a, DType)] + [
            k for k, v in kwargs.items() if isinstance(v, DType) and k != "dtype"
        ]
        if misplaced:  # a dtype where torch's signature wants a tensor, a number or a dim
            where = misplaced[0]
            place = f"(position {where + 1})" if isinstance(where, int) else f"'{where}'"
            raise ScriptRuntimeError(f"{name}(): argument {place} must not be torch.dtype", "TypeError")
        if "out" in kwargs and receiver is None:  # torch.matmul(a, b, out=c): the result into c
            return self.into_out(name, kwargs.pop("out"), self.registry(module, name, None, args, kwargs, node), node)
        mapping: dict[int, Any] = {}
        if receiver is not None:
            func: ast.expr = ast.Attribute(
                value=self.literal(receiver, mapping, node), attr=name, ctx=ast.Load()
            )
        else:
            func = ast.Attribute(value=_dotted(module), attr=name, ctx=ast.Load())
        call = ast.Call(
            func=func,
            args=[self.literal(a, mapping, node) for a in args],
            keywords=[ast.keyword(arg=k, value=self.literal(v, mapping, node)) for k, v in kwargs.items()],
        )
        for child in ast.walk(call):
            child.lineno, child.col_offset = node.lineno, node.col_offset
            child.end_lineno, child.end_col_offset = node.end_lineno, node.end_col_offset
        self.binder.operations = 0
        receivers = [func.value] if receiver is not None else []
        if returns_pair(name, call, receivers):
            parts = []  # (values, indices), each by the binder as x.max(dim).values / .indices
            for part in (0, 1):
                operands, build = self.binder.plan_call(call, node.lineno, node.col_offset + 1, part=part)
                parts.append(self.evaluate(build(*[_bound(mapping, o) for o in operands])))
            return Picked(parts, name)
        operands, build = self.binder.plan_call(call, node.lineno, node.col_offset + 1)
        values = [_bound(mapping, o) for o in operands]
        return self.evaluate(build(*values))

    def index_tensor(self, t: Tensor, index: int, node: ast.AST | None) -> Tensor:
        return self.apply("select", [t], {"dim": 0, "index": index})

    def subscript(self, owner: Any, node: ast.Subscript) -> Any:
        key = self.index_value(node.slice)
        if isinstance(owner, Tensor):
            mapping: dict[int, Any] = {}
            elements: tuple = ()
            if isinstance(key, Tensor) and key.dtype == "bool" and key.value.ndim > 1:
                # x[mask2d]: the masked dims merged into one, then one index (as torch does inside)
                k = key.value.ndim
                merged = (math.prod(owner.shape[:k]), *owner.shape[k:])
                if tuple(owner.shape[:k]) == key.shape:
                    owner = self.apply("reshape", [owner], {"shape": merged})
                    key = Tensor(np.flatnonzero(key.value), dtype="int64")
            for element in _as_tuple(key):  # x[mask] is x[mask.nonzero()], one index per mask dim
                if isinstance(element, Tensor) and element.dtype == "bool":
                    elements += tuple(Tensor(i, dtype="int64") for i in np.nonzero(element.value))
                else:
                    elements += (element,)
            elements = _index_lists(elements)
            if len(elements) != 1:
                key = elements
            parts = [self.index_literal(k, mapping, node) for k in elements]
            slice_node = ast.Tuple(elts=parts, ctx=ast.Load()) if isinstance(key, tuple) else parts[0]
            synthetic = ast.Subscript(
                value=ast.Name(id="x", ctx=ast.Load()), slice=slice_node, ctx=ast.Load()
            )
            for child in ast.walk(synthetic):
                child.lineno, child.col_offset = node.lineno, node.col_offset
            self.binder.operations = 0
            children, build = self.binder.plan_subscript(synthetic, node.lineno, node.col_offset + 1)
            tensors = [mapping[id(c)] for c in children[1:]]
            return self.evaluate(build(owner, *tensors))
        if isinstance(owner, dict):
            return self.python(lambda: owner[key])
        if isinstance(owner, (list, tuple, str)):
            if not isinstance(key, (int, slice)) or isinstance(key, bool):
                raise ScriptRuntimeError(
                    f"{self.type_name(owner)} indices must be integers or slices", "TypeError"
                )
            result = self.python(lambda: owner[key])
            return Size(result) if isinstance(owner, Size) and isinstance(key, slice) else result
        raise ScriptRuntimeError(f"'{self.type_name(owner)}' object is not subscriptable", "TypeError")

    def index_value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Slice):
            bounds = [
                None if part is None else self.expr(part) for part in (node.lower, node.upper, node.step)
            ]
            for b in bounds:
                if b is not None and not isinstance(b, int):
                    raise ScriptRuntimeError("slice indices must be integers or None", "TypeError")
            return slice(*bounds)
        if isinstance(node, ast.Tuple):
            return tuple(self.index_value(e) for e in node.elts)
        return self.expr(node)

    def index_literal(self, key: Any, mapping: dict, node: ast.AST) -> ast.expr:
        if isinstance(key, slice):

            def const(v):
                return None if v is None else ast.Constant(value=v)

            return ast.Slice(lower=const(key.start), upper=const(key.stop), step=const(key.step))
        if key is Ellipsis or key is None:
            return ast.Constant(value=key)
        if isinstance(key, bool):
            raise ScriptError(f"{_position(node)}: indexing with True/False is not supported")
        if isinstance(key, int):
            return ast.Constant(value=key)
        if isinstance(key, (list, tuple, range)):
            return ast.List(elts=[self.index_literal(k, mapping, node) for k in key], ctx=ast.Load())
        if isinstance(key, Tensor):
            placeholder = ast.Name(id=f"i{len(mapping)}", ctx=ast.Load())
            mapping[id(placeholder)] = key
            return placeholder
        raise ScriptRuntimeError("only integers, slices, lists and tensors can index a tensor", "IndexError")

    def set_item(self, owner: Any, target: ast.Subscript, value: Any) -> None:
        key = self.index_value(target.slice)
        if isinstance(owner, (list, dict)):
            if isinstance(key, slice):  # a[0:1] = range(10**9) would build the list first
                bounds.check_range(value, self.line)
            self.python(lambda: owner.__setitem__(key, value))
            self.check_length(owner)
            return
        if not isinstance(owner, Tensor):
            raise ScriptRuntimeError(
                f"'{self.type_name(owner)}' object does not support item assignment", "TypeError"
            )
        recording = self.grad_enabled and (
            owner.requires_grad or isinstance(value, Tensor) and value.requires_grad
        )
        # x[0] = v is x[0].copy_(v): an in-place op on a view; x[[0]] = v is index_put_ on x
        basic = all(isinstance(k, (int, slice)) or k is None or k is Ellipsis for k in _as_tuple(key))
        self.check_in_place(owner, recording, through_view=basic)
        index = self.numpy_index(key)
        if recording:
            name = "CopySlices" if basic or owner.view_of is not None else "IndexPutBackward0"
            self.record_write(owner, index, value, name)
            return
        if isinstance(value, Tensor):
            value = value.value.astype(owner.dtype, copy=False)
        try:
            self.python(lambda: owner.write(value, index))
        except ScriptRuntimeError as exc:  # NumPy says axis where PyTorch says dimension
            exc.message = re.sub(
                r"out of bounds for axis (\d+)", r"out of bounds for dimension \1", exc.message
            )
            raise

    def record_write(self, owner: Tensor, index: Any, value: Any, name: str) -> None:
        """An in-place write that autograd records: `owner[index] = value` (owner itself or a
        view of it). The base tensor's grad_fn becomes `name` (CopySlices; IndexPutBackward0
        for advanced indexing), with the old base and the written values as inputs; a view
        that was written through reads its region out of the new base (AsStridedBackward0)."""
        base = owner.view_of if owner.view_of is not None else owner
        if base.steps:
            raise ScriptError(
                f"line {self.line}: a recorded in-place write into a tensor made by .data or detach() "
                "is not supported yet"
            )
        steps = owner.steps if owner is not base else ()
        old = base.snapshot()  # marks the array recorded, so the write below copies it first
        source = value.snapshot() if isinstance(value, Tensor) else float(value)
        written = value.value.astype(owner.dtype, copy=False) if isinstance(value, Tensor) else value
        try:
            self.python(lambda: owner.write(written, index))
        except ScriptRuntimeError as exc:  # NumPy says axis where PyTorch says dimension
            exc.message = re.sub(
                r"out of bounds for axis (\d+)", r"out of bounds for dimension \1", exc.message
            )
            raise
        attrs = {"steps": steps, "index": index, "shape": base.shape}
        fn = runtime.Fn(COPY_SLICES, name, attrs, (old, source), base.value)
        base.grad_fn, base.requires_grad = fn, True
        fn.output = (base.version, base.version.value)
        base.version.recorded = True
        base.autograd_writes += 1  # views taken before now have a stale grad_fn
        if owner is not base:
            attrs = {"steps": steps, "index": Ellipsis, "shape": owner.shape}
            view_fn = runtime.Fn(
                VIEW_AFTER_WRITE, "AsStridedBackward0", attrs, (base.snapshot(),), owner.value
            )
            owner.grad_fn, owner.requires_grad = view_fn, True
            view_fn.output = (owner.version, owner.version.value)
            owner.view_writes = base.autograd_writes

    def numpy_index(self, key: Any) -> Any:
        if isinstance(key, tuple):
            return tuple(self.numpy_index(k) for k in key)
        if isinstance(key, Tensor):
            return key.value
        if isinstance(key, (int, slice, list)) or key is None or key is Ellipsis:
            return key
        if isinstance(key, range):  # d[range(n), y] = v, as reading d[range(n), y] takes it
            return list(key)
        raise ScriptRuntimeError("only integers, slices, lists and tensors can index a tensor", "IndexError")

    # -- tensors: methods -----------------------------------------------------------------

    def item(self, t: Tensor) -> Any:
        if t.value.size != 1:
            raise ScriptRuntimeError(f"a Tensor with {t.value.size} elements cannot be converted to Scalar")
        return t.value.reshape(()).item()

    def check_in_place(self, t: Tensor, recording: bool, through_view: bool = False) -> None:
        """PyTorch's refusals of an in-place op, in its words."""
        if not self.grad_enabled:
            return
        base = t.view_of
        if base is not None and not t.view_grad_mode and base.requires_grad:
            if through_view:
                raise ScriptRuntimeError(
                    "Output 0 of Select is a view of a view which was created in no_grad mode and is "
                    + NO_GRAD_VIEW[len("A view was created in no_grad mode and is ") :]
                )
            raise ScriptRuntimeError(NO_GRAD_VIEW)
        if t.is_leaf and t.requires_grad:
            raise ScriptRuntimeError(VIEW_OF_LEAF if through_view else LEAF_IN_PLACE)
        if base is not None and base.is_leaf and base.requires_grad:
            raise ScriptRuntimeError(VIEW_OF_LEAF)

    def in_place(self, t: Tensor, name: str, other: Any, alpha: Any = None) -> Tensor:
        recording = self.grad_enabled and (
            t.requires_grad or isinstance(other, Tensor) and other.requires_grad
        )
        self.check_in_place(t, recording)
        if alpha is not None:
            other = self.apply("mul", [other, alpha], {}) if isinstance(other, Tensor) else other * alpha
        return self.write_in_place(t, self.apply(name, [t, other], {}))

    def scatter(self, t: Tensor, name: str, args: list, kwargs: dict, node: ast.AST) -> Tensor:
        """x.scatter_(dim, index, src or value), as one-hot targets are built: values written
        at index along dim. Only where no gradient is involved (ScatterBackward is not here)."""
        given = dict(zip(("dim", "index", "src"), args)) | kwargs
        if len(args) > 3 or any(k not in ("dim", "index", "src", "value") for k in given):
            raise ScriptRuntimeError(f"{name}() got an unexpected argument (reduce= is not supported)", "TypeError")
        dim, index, src = given.get("dim"), given.get("index"), given.get("src", given.get("value"))
        tensors = [v for v in (t, src) if isinstance(v, Tensor)]
        if name == "scatter_":
            self.check_in_place(t, self.grad_enabled and t.requires_grad)
        if self.grad_enabled and any(v.requires_grad for v in tensors):
            raise ScriptError(f"{_position(node)}: {name}() of a tensor that requires grad is not supported yet")
        if not isinstance(dim, int) or not isinstance(index, Tensor):
            raise ScriptRuntimeError(f"{name}() takes (dim, index, src or value)", "TypeError")
        if index.dtype not in ("int64", "int32"):
            raise ScriptRuntimeError("scatter(): Expected dtype int32/int64 for index")
        if index.value.ndim != max(t.value.ndim, 1):
            raise ScriptRuntimeError("Index tensor must have the same number of dimensions as self tensor")
        axis = _dim_index(dim, max(t.value.ndim, 1))
        positions = index.value.astype(np.int64)
        size = t.shape[axis] if t.shape else 1
        outside = positions[(positions < 0) | (positions >= size)]
        if outside.size:
            raise ScriptRuntimeError(f"index {int(outside.flat[0])} is out of bounds for dimension {axis} with size {size}")
        array = t.value.copy()
        if isinstance(src, Tensor):
            values = src.value[tuple(slice(0, n) for n in positions.shape)].astype(array.dtype)
        else:
            values = np.asarray(src).astype(array.dtype)
        self.python(lambda: np.put_along_axis(array, positions, values, axis=axis))
        if name == "scatter":
            return Tensor(array, dtype=t.dtype)
        self.python(lambda: t.write(array))
        return t

    def into_out(self, name: str, out: Any, result: Any, node: ast.AST) -> Tensor:
        """out=: the result's values written into `out`, which torch returns; no autograd."""
        if not isinstance(out, Tensor) or not isinstance(result, Tensor):
            raise ScriptRuntimeError(f"{name}(): argument 'out' must be Tensor", "TypeError")
        if self.grad_enabled and (result.requires_grad or out.requires_grad):
            raise ScriptRuntimeError(
                f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                "but one of the arguments requires grad."
            )
        rank = {"bool": 0, "int32": 1, "int64": 1, "float32": 2, "float64": 2}
        if rank[result.dtype] > rank[out.dtype]:
            raise ScriptRuntimeError(
                f"result type {_TORCH_TYPE[result.dtype]} can't be cast to the desired output type "
                f"{_TORCH_TYPE[out.dtype]}"
            )
        if out.shape != result.shape:
            raise ScriptError(f"{_position(node)}: out= of another shape than the result is not supported")
        self.check_in_place(out, False)
        self.python(lambda: out.write(result.value.astype(out.dtype)))
        return out

    def write_in_place(self, t: Tensor, result: Tensor) -> Tensor:
        """An in-place op's result written into t, with the node torch records for it."""
        if result.shape != t.shape:
            raise ScriptRuntimeError(
                f"output with shape {list(t.shape)} doesn't match the broadcast shape {list(result.shape)}"
            )
        fn = result.grad_fn
        if fn is not None:  # PyTorch saves a clone of self for an in-place op's own backward
            first = fn.operands[0]
            fn.operands = (dataclasses.replace(first, version=None),) + fn.operands[1:]
        if fn is not None and t.view_of is not None:  # through a view: the base gets CopySlices
            self.record_write(t, Ellipsis, result, "CopySlices")
            return t
        t.assign(result.value)
        if fn is not None:
            t.grad_fn, t.requires_grad = fn, True
            fn.output = (t.version, t.version.value)
            fn.out = result.value
            t.autograd_writes += 1  # views of t taken before now have a stale grad_fn
        return t

    def method(self, receiver: Any, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if isinstance(receiver, (runtime.Fn, AccumulateGrad)):
            if name == "name" and not args:
                if isinstance(receiver, AccumulateGrad):
                    return "torch::autograd::AccumulateGrad"
                # PyTorch's hand-written C++ nodes name themselves with their namespace
                hand_written = receiver.name in ("CopySlices", "CopyBackwards")
                return f"torch::autograd::{receiver.name}" if hand_written else receiver.name
            raise ScriptError(
                f"{_position(node)}: grad_fn has only .name(), .next_functions and .variable here"
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
                    raise ScriptError(f"{_position(node)}: sorting a list of tensors is not supported; use torch.sort")
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
            if name in _STR_METHODS and not kwargs or name in ("split", "rsplit") and set(kwargs) <= {"sep", "maxsplit"}:
                if not all(isinstance(a, (str, int, tuple)) and not isinstance(a, bool) or a is None for a in args):
                    raise ScriptRuntimeError(f"str.{name}() takes strings and integers here", "TypeError")
                if name == "replace" and len(args) >= 2 and all(isinstance(a, str) for a in args[:2]):
                    old, new = args[0], args[1]
                    grows = (receiver.count(old) if old else len(receiver) + 1) * max(len(new) - len(old), 0)
                    self.check_length(" " * min(len(receiver) + grows, limits.Script.MAX_SEQUENCE + 1))
                if name in ("center", "ljust", "rjust", "zfill") and args and isinstance(args[0], int):
                    self.check_length(" " * min(args[0], limits.Script.MAX_SEQUENCE + 1))
                return self.python(lambda: getattr(receiver, name)(*args, **kwargs))
        if isinstance(receiver, np.ndarray) and name in _NDARRAY_METHODS:
            # what .numpy() gave: NumPy's own results, from numbers and ints only
            if not all(isinstance(a, (int, float)) or a is None for a in [*args, *kwargs.values()]):
                raise ScriptRuntimeError(f"ndarray.{name}() takes numbers here", "TypeError")
            if set(kwargs) - {"axis", "decimals", "keepdims", "ddof"}:
                raise ScriptRuntimeError(f"ndarray.{name}() got an unexpected keyword argument", "TypeError")
            return self.python(lambda: getattr(receiver, name)(*args, **kwargs))
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
                f"{_position(node)}: {self.type_name(receiver)}.{name}() is not supported by gradcli run"
            )
        raise ScriptRuntimeError(
            f"'{self.type_name(receiver)}' object has no attribute '{name}'", "AttributeError"
        )

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

    def tensor_method(self, t: Tensor, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        _check_keywords(name, kwargs, _METHOD_KEYWORDS, "TensorBase.")
        if name == "backward":
            return self.backward(
                t, *self.signature(name, args, kwargs, ("gradient", "retain_graph", "create_graph", "inputs"))
            )
        if name == "item" and not args:
            return self.item(t)
        if name == "tolist" and not args:
            bounds.check_text_length(t.value.size, self.line)  # a list of MAX_SEQUENCE numbers at most
            runtime.spend(t.value.size * _PYTHON_ITEM_WORK)
            return t.value.tolist()
        if name == "size":
            if args or kwargs:
                dim = args[0] if args else kwargs["dim"]
                return self.python(lambda: t.shape[dim])
            return Size(t.shape)
        if name in ("dim", "ndimension") and not args:
            return t.value.ndim
        if name in ("numel", "nelement") and not args:
            return int(t.value.size)
        if name == "is_contiguous" and not args and not kwargs:
            return strides.is_contiguous(t.shape, runtime.element_strides(t))
        if name == "stride" and len(args) <= 1 and not kwargs:
            layout = runtime.element_strides(t)
            return tuple(layout) if not args else layout[_dim_index(args[0], len(layout))]
        if name == "requires_grad_":
            t.set_requires_grad(self.truth(args[0]) if args else bool(kwargs.get("requires_grad", True)))
            return t
        if name == "retain_grad" and not args:
            if t.grad_fn is not None:
                t.retains_grad = True
                t.grad_fn.retained = t
            elif not t.requires_grad:
                raise ScriptRuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return None
        if name == "detach" and not args:
            return Tensor.alias(t)  # shares elements and the version counter
        if name == "detach_" and not args:
            t.grad_fn, t.requires_grad = None, False
            return t
        if name == "numpy" and not args:
            if t.requires_grad:
                raise ScriptRuntimeError(
                    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
                )
            return t.value
        if name in ("scatter_", "scatter"):
            return self.scatter(t, name, args, kwargs, node)
        if name in ("zero_", "fill_"):
            fill = 0 if name == "zero_" else args[0]
            # torch's node: ZeroBackward0, FillBackward2 for a number, FillBackward3 for a tensor
            kind = "ZeroBackward0" if name == "zero_" else f"FillBackward{3 if isinstance(fill, Tensor) else 2}"
            if isinstance(fill, Tensor):
                fill = self.item(fill)
            self.check_in_place(t, self.grad_enabled and t.requires_grad)
            if self.grad_enabled and t.requires_grad:
                kind = "CopySlices" if t.view_of is not None else kind
                self.record_write(t, Ellipsis, float(fill), kind)
                return t
            self.python(lambda: t.write(fill))
            return t
        if name in _IN_PLACE_CALLS:
            others = [a for a in [*args, *kwargs.values()] if isinstance(a, Tensor)]
            recording = self.grad_enabled and (t.requires_grad or any(a.requires_grad for a in others))
            self.check_in_place(t, recording)
            return self.write_in_place(t, self.registry("", _IN_PLACE_CALLS[name], t, args, kwargs, node))
        if name in _IN_PLACE_METHODS:
            alpha = kwargs.pop("alpha", None)
            if len(args) != 1 or kwargs:
                raise ScriptRuntimeError(f"{name}() takes one tensor or number (and alpha=)", "TypeError")
            return self.in_place(t, _IN_PLACE_METHODS[name], args[0], alpha)
        if name == "copy_" and len(args) == 1 and isinstance(args[0], Tensor):
            recording = self.grad_enabled and (t.requires_grad or args[0].requires_grad)
            self.check_in_place(t, recording)
            if recording:
                self.record_write(
                    t, Ellipsis, args[0], "CopySlices" if t.view_of is not None else "CopyBackwards"
                )
                return t
            t.assign(np.broadcast_to(args[0].value, t.shape))
            return t
        if name in ("cpu", "cuda") and not args and not kwargs:
            self.on_cpu(name)
            return t
        if name == "to":  # .to(device), .to(dtype), .to(device, dtype), .to(device=..., dtype=...)
            kwargs.pop("non_blocking", None)
            given = list(args) + [kwargs.pop(k) for k in ("device", "dtype") if k in kwargs]
            if kwargs or len(given) > 2 or not all(isinstance(g, (DType, Device, str)) for g in given):
                raise ScriptError(
                    f"{_position(node)}: .to() takes a device and/or a dtype here, as in .to(device) or .to(torch.float64)"
                )
            for g in given:
                if not isinstance(g, DType):
                    self.on_cpu(g)
            dtypes_given = [g for g in given if isinstance(g, DType)]
            if not dtypes_given:
                return t
            args, name = dtypes_given, "to"
        if name in ("float", "double", "long", "int", "bool", "to", "type") and not kwargs:
            target = {"float": "float32", "double": "float64", "long": "int64", "int": "int32", "bool": "bool"}.get(
                name
            )
            if name in ("to", "type"):
                if len(args) != 1 or not isinstance(args[0], DType):
                    raise ScriptError(
                        f"{_position(node)}: .{name}() takes a dtype here, as in .to(torch.float64)"
                    )
                target = args[0].name
            if target == t.dtype:
                return t
            if t.dtype in ("float32", "float64") and target in ("float32", "float64"):
                return self.apply("_to_copy", [t], {"dtype": target})
            # an integer or bool result never requires grad in torch: no node, no gradient
            return Tensor(t.value.astype(target), dtype=target)
        if name in _PIECES:
            return self.pieces(name, t, args, kwargs)
        if name in _POSITIONS:
            return self.positions(name, t, args, kwargs)
        if name == "register_hook" and len(args) == 1 and not kwargs:
            return self.register_hook(t, args[0], node)
        if name == "register_post_accumulate_grad_hook":
            raise ScriptError(f"{_position(node)}: post-accumulate hooks are not supported yet")
        return self.registry("", name, t, args, kwargs, node)

    def register_hook(self, t: Tensor, hook: Any, node: ast.AST) -> HookHandle:
        """t.register_hook(f): backward passes t's gradient through f, which may return a new one."""
        if not t.requires_grad:
            raise ScriptRuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if not isinstance(hook, UserFunction) and hook != Function("", "print"):
            raise ScriptError(f"{_position(node)}: a hook is a function defined with def (or print)")
        dtype = t.dtype
        label = hook.node.name if isinstance(hook, UserFunction) else "print"

        def run(g: np.ndarray) -> np.ndarray:
            grad = Tensor(np.array(g, dtype=dtype), dtype=dtype)
            if isinstance(hook, UserFunction):
                returned = self.call_user(hook, [grad], {}, node)
            else:
                returned = self.builtin("print", [grad], {}, node)
            if returned is None:  # the hook may have changed its gradient in place (g *= 2)
                return g if grad.version.value == 0 else np.asarray(grad.value, dtype=g.dtype)
            if not isinstance(returned, Tensor):
                raise ScriptRuntimeError(
                    f"expected Variable or None (got {self.type_name(returned)})", "TypeError"
                )
            if returned.shape != np.shape(g):
                raise ScriptRuntimeError(f"hook '{label}' has changed the size of value")
            return np.asarray(returned.value, dtype=g.dtype)

        owner = t.hooks if t.grad_fn is None else t.grad_fn.hooks
        key = next(_HOOK_IDS)
        owner[key] = run
        return HookHandle(owner, key)

    def signature(self, name: str, args: list, kwargs: dict, params: tuple[str, ...]) -> list:
        if len(args) > len(params):
            raise ScriptRuntimeError(f"{name}() takes at most {len(params)} arguments", "TypeError")
        values = dict(zip(params, args))
        for key, value in kwargs.items():
            if key not in params or key in values:
                raise ScriptRuntimeError(f"{name}() got an unexpected keyword argument '{key}'", "TypeError")
            values[key] = value
        return [values.get(p) for p in params]

    # -- autograd -------------------------------------------------------------------------

    def backward(
        self,
        t: Tensor | list,
        gradient: Any,
        retain_graph: Any,
        create_graph: Any,
        inputs: Any = None,
        call: str = "backward",
    ) -> None:
        """t.backward() and torch.autograd.backward: one pass from one or several tensors,
        accumulating into the leaves' .grad (only into `inputs` when given)."""
        roots = self.tensors_of(t, "tensors")
        grads = self.gradients_of(gradient, roots)
        create = self.truth(create_graph) if create_graph is not None else False
        retain = create if retain_graph is None else self.truth(retain_graph)
        only = None if inputs is None else self.tensors_of(inputs, "inputs")
        if only is not None and not only:
            raise ScriptRuntimeError("`inputs` argument to `backward()` cannot be empty.")
        traced = self.traced()
        if create:
            self.warn_once(REFERENCE_CYCLE)
        runtime.run_backward(roots, grads, retain, record=traced, create_graph=create, only=only)
        self.recorded(call, traced)
        return None

    def tensors_of(self, value: Any, what: str) -> list[Tensor]:
        """A tensor or a sequence of tensors, as torch.autograd's functions take them."""
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        if not all(isinstance(i, Tensor) for i in items):
            bad = next(i for i in items if not isinstance(i, Tensor))
            raise ScriptRuntimeError(f"{what} must be tensors, not {self.type_name(bad)}", "TypeError")
        return items

    def gradients_of(self, value: Any, roots: list[Tensor]) -> list[Tensor | None]:
        """grad_tensors / grad_outputs: None for each root, one tensor, or a sequence."""
        if value is None:
            return [None] * len(roots)
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        found: list[Tensor | None] = []
        for item, root in zip(items, roots):
            if item is None or isinstance(item, Tensor):
                found.append(item)
                continue
            dtype = root.dtype if root.dtype in runtime.FLOAT_DTYPES else "float32"
            found.append(Tensor(np.asarray(item, dtype=dtype)))
        return found + [None] * (len(items) - len(roots)) if len(items) > len(roots) else found

    def warn_once(self, message: str) -> None:
        """A warning PyTorch's C++ engine raises: Python shows it once per run (its location is
        always the same line of torch/autograd/graph.py)."""
        if ("*", message) not in self.warned:
            self.warned.add(("*", message))
            self.warnings.append(f"line {self.line}: UserWarning: {message}")

    def traced(self) -> runtime.Traced | None:
        """A record for the next backward call, named after the script's variables."""
        if not self.record or len(self.backward_calls) >= limits.Script.MAX_RECORDED_BACKWARD_CALLS:
            return None
        names: dict[int, str] = {}
        for scope in (self.globals, *self.frames):
            for name, value in scope.items():
                if isinstance(value, Tensor):
                    names[id(value)] = name
                    if value.grad_fn is not None:
                        names[id(value.grad_fn)] = name
        return runtime.Traced(names)

    def recorded(self, call: str, traced: runtime.Traced | None, grads: list | None = None) -> None:
        if traced is None or traced.laid is None:
            self.backward_calls.append({"line": self.line, "call": call})
            return
        from .trace import BackwardCall

        if grads is None:
            after = {i: runtime._grad_copy(t) for i, t in traced.laid.leaves.items()}
        else:
            # allow_unused: an input the call did not reach has no node and returns None
            after = {index: g for index, g in zip(traced.inputs, grads) if index is not None}
        source = self.lines[self.line - 1].strip() if self.line <= len(self.lines) else ""
        record = BackwardCall(self.line, call, source, traced, after)
        self.backward_calls.append(record)
        show_array = lambda v: tensor_repr(v, dtype=str(v.dtype))  # noqa: E731
        if self.explain_width is not None:
            self.write(record.explain(self.explain_width, show_array))
        if self.trace_width is not None:
            self.write(record.text(self.trace_width, show_array, self.trace_nodes))

    def autograd_call(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if name == "backward":
            tensors, grads, retain, create, inputs = self.signature(
                "backward",
                args,
                kwargs,
                ("tensors", "grad_tensors", "retain_graph", "create_graph", "inputs"),
            )
            return self.backward(tensors, grads, retain, create, inputs, call="autograd.backward")
        # only_inputs: deprecated in torch and ignored (True is its default and its only meaning)
        outputs, inputs, grad_outputs, retain, create, _, unused = self.signature(
            "grad",
            args,
            kwargs,
            ("outputs", "inputs", "grad_outputs", "retain_graph", "create_graph", "only_inputs", "allow_unused"),
        )
        roots = self.tensors_of(outputs, "outputs")
        sources = self.tensors_of(inputs, "inputs")
        if not sources:
            raise ScriptRuntimeError("`inputs` argument to `grad()` cannot be empty.")
        create = self.truth(create) if create is not None else False
        retain = create if retain is None else self.truth(retain)
        traced = self.traced()
        grads = runtime.run_backward(
            roots,
            self.gradients_of(grad_outputs, roots),
            retain,
            sources,
            record=traced,
            create_graph=create,
            allow_unused=bool(unused) and self.truth(unused),
        )
        assert grads is not None
        results = tuple(
            g if g is None or isinstance(g, Tensor) else Tensor(g, dtype=i.dtype)
            for g, i in zip(grads, sources)
        )
        self.recorded("autograd.grad", traced, [None if g is None else g.value for g in results])
        return results


    def functional(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        """torch.autograd.functional.jacobian(f, inputs) and .hessian(f, inputs), as torch's
        reverse mode computes them: the inputs detached and made to require grad, f called
        once, then one torch.autograd.grad per output element (the gradient's, for hessian)."""
        if name in ("vjp", "vhp", "hvp"):
            return self.functional_product(name, args, kwargs, node)
        names = ("func", "inputs", "create_graph", "strict", "vectorize", "strategy")
        if name == "hessian":
            names = ("func", "inputs", "create_graph", "strict", "vectorize", "outer_jacobian_strategy")
        func, given, single, leaves = self.functional_inputs(name, names, args, kwargs, node)
        previous, self.grad_enabled = self.grad_enabled, True
        try:
            out = self.call_user(func, leaves, {}, node)
            if name == "hessian":
                if not isinstance(out, Tensor) or out.value.size != 1:
                    raise ScriptRuntimeError(
                        "The function given to hessian should return a single Tensor with a single element"
                    )
                firsts = self.autograd_call(
                    "grad", [out, leaves], {"create_graph": True, "allow_unused": True}, node
                )
                outputs = [g if g is not None else Tensor(np.zeros(x.shape, x.value.dtype), dtype=x.dtype) for g, x in zip(firsts, leaves)]
                blocks = [self._jacobian_rows(o, leaves, node) for o in outputs]
                if single:
                    return blocks[0][0]
                return tuple(tuple(row) for row in blocks)
            outputs = [out] if isinstance(out, Tensor) else list(out) if isinstance(out, (list, tuple)) else None
            if not outputs or not all(isinstance(o, Tensor) for o in outputs):
                raise ScriptRuntimeError(
                    "The outputs of the user-provided function given to jacobian must be either a Tensor or a tuple of Tensors",
                    "TypeError",
                )
            blocks = [self._jacobian_rows(o, leaves, node) for o in outputs]
        finally:
            self.grad_enabled = previous
        if isinstance(out, Tensor):
            return blocks[0][0] if single else tuple(blocks[0])
        return tuple(b[0] for b in blocks) if single else tuple(tuple(b) for b in blocks)

    def functional_inputs(
        self, name: str, names: tuple[str, ...], args: list, kwargs: dict, node: ast.AST
    ) -> tuple[UserFunction, dict, bool, list[Tensor]]:
        """torch.autograd.functional's arguments: the function, every argument by name, whether
        `inputs` is one tensor, and the inputs detached and made to require grad."""
        given = dict(zip(names, args)) | kwargs
        if len(args) > len(names) or any(k not in names for k in given):
            raise ScriptRuntimeError(f"{name}() got an unexpected argument", "TypeError")
        func, inputs = given.get("func"), given.get("inputs")
        if not isinstance(func, UserFunction):
            raise ScriptError(f"{_position(node)}: {name}() takes a function defined in the script")
        unsupported = [k for k in ("create_graph", "strict", "vectorize") if k in names]
        if any(given.get(k) for k in unsupported):
            raise ScriptError(f"{_position(node)}: {name}() with {', '.join(unsupported)} is not supported")
        single = isinstance(inputs, Tensor)
        sources = [inputs] if single else list(inputs) if isinstance(inputs, (list, tuple)) else None
        if not sources or not all(isinstance(x, Tensor) for x in sources):
            raise ScriptRuntimeError(f"The inputs given to {name} must be either a Tensor or a tuple of Tensors", "TypeError")
        return func, given, single, [Tensor(np.array(x.value), dtype=x.dtype, requires_grad=True) for x in sources]

    def functional_product(self, name: str, args: list, kwargs: dict, node: ast.AST) -> tuple:
        """torch.autograd.functional.vjp(f, inputs, v) -> (f(inputs), v^T J), and vhp / hvp
        -> (f(inputs), v^T H / H v) of a scalar f: one backward, or a backward of the
        create_graph gradient (H v is v^T H for the symmetric Hessians of these functions)."""
        names = ("func", "inputs", "v", "create_graph", "strict")
        func, given, single, leaves = self.functional_inputs(name, names, args, kwargs, node)
        v = given.get("v")
        vectors = None if v is None else [v] if isinstance(v, Tensor) else list(v)
        previous, self.grad_enabled = self.grad_enabled, True
        try:
            out = self.call_user(func, leaves, {}, node)
            outputs = [out] if isinstance(out, Tensor) else list(out) if isinstance(out, (list, tuple)) else []
            if name != "vjp":
                if not isinstance(out, Tensor):
                    raise ScriptRuntimeError(f"The function given to {name} should return a single Tensor")
                if out.value.size != 1:
                    raise ScriptRuntimeError(
                        f"The Tensor returned by the function given to {name} should contain a single element"
                    )
                if vectors is None and (len(leaves) != 1 or leaves[0].value.size != 1):
                    raise ScriptRuntimeError(
                        "The vector v can only be None if the input to the user-provided function is a single "
                        "Tensor with a single element."
                    )
                first = self.autograd_call("grad", [out, leaves], {"create_graph": True}, node)
                grads = self.autograd_call(
                    "grad", [list(first), leaves], {"grad_outputs": vectors, "allow_unused": True}, node
                )
            else:
                if vectors is None and (len(outputs) != 1 or outputs[0].value.size != 1):
                    raise ScriptRuntimeError(
                        "The vector v can only be None if the user-provided function returns a single Tensor "
                        "with a single element."
                    )
                grads = self.autograd_call("grad", [outputs, leaves], {"grad_outputs": vectors, "allow_unused": True}, node)
        finally:
            self.grad_enabled = previous
        filled = [g if g is not None else Tensor(np.zeros(x.shape, x.value.dtype), dtype=x.dtype) for g, x in zip(grads, leaves)]
        plain = [Tensor.alias(o) for o in outputs]  # torch returns the outputs detached
        for o in plain:
            o.requires_grad, o.grad_fn = False, None
        result = plain[0] if isinstance(out, Tensor) else tuple(plain)
        return result, filled[0] if single else tuple(filled)

    def _jacobian_rows(self, output: Tensor, leaves: list, node: ast.AST) -> list:
        """d output / d leaf for each leaf: one backward per element of output, stacked."""
        count = output.value.size
        if count > limits.Script.MAX_LOOP:
            raise ScriptError(f"line {self.line}: a jacobian of more than MAX_LOOP={limits.Script.MAX_LOOP:,} rows")
        rows: list[list[np.ndarray]] = [[] for _ in leaves]
        for i in range(count):
            if output.requires_grad:
                seed = np.zeros(output.value.size, dtype=output.value.dtype)
                seed[i] = 1
                grads = self.autograd_call(
                    "grad",
                    [output, leaves],
                    {"grad_outputs": Tensor(seed.reshape(output.shape), dtype=output.dtype), "retain_graph": True, "allow_unused": True},
                    node,
                )
            else:
                grads = [None] * len(leaves)
            for k, (g, x) in enumerate(zip(grads, leaves)):
                rows[k].append(np.zeros(x.shape, x.value.dtype) if g is None else np.asarray(g.value))
        return [
            Tensor(np.stack(r).reshape(output.shape + x.shape) if r else np.zeros(output.shape + x.shape), dtype=x.dtype)
            for r, x in zip(rows, leaves)
        ]


class _Memory:
    """MAX_SCRIPT_BYTES: how much the process may grow while a script runs.

    Each cap on one tensor or list still lets a loop keep thousands of them
    (`xs.append(torch.zeros(10**8))`); the resident size (Linux /proc/self/statm) is read
    every 16 statements and after each million tensor elements made, and past the cap the
    script ends with one error line before the machine runs out of memory."""

    def __init__(self, line: Any = lambda: 0) -> None:
        self.fd: int | None = None
        self.start = 0
        self.checked = 0
        self.line = line  # the statement running, for the error

    def __enter__(self) -> _Memory:
        try:
            self.fd = os.open("/proc/self/statm", os.O_RDONLY)
            self.start = self.resident()
        except OSError:  # not Linux: the per-tensor and per-list caps still hold
            self.fd = None
        self.checked = runtime.allocated()
        runtime.MEMORY_CHECK[0] = self.check_before
        return self

    def __exit__(self, *exc: object) -> None:
        runtime.MEMORY_CHECK[0] = lambda nbytes: None
        if self.fd is not None:
            os.close(self.fd)

    def resident(self) -> int:
        assert self.fd is not None
        return int(os.pread(self.fd, 64, 0).split()[1]) * _PAGE

    def check(self, line: int, adding: int = 0) -> None:
        self.checked = runtime.allocated()
        if self.fd is None:
            return
        grown = self.resident() - self.start + adding
        if grown > limits.Script.MAX_SCRIPT_BYTES:
            raise ScriptError(
                f"line {line}: the script holds more than MAX_SCRIPT_BYTES={limits.Script.MAX_SCRIPT_BYTES:,} "
                "bytes of tensors and lists"
            )


    def check_before(self, nbytes: int) -> None:
        """Before an array of nbytes is made: within one statement as between statements."""
        self.check(self.line(), nbytes)


# Python frames one script may need: MAX_CALL_DEPTH calls, each up to MAX_EXPR_DEPTH operators
# deep and ~MAX_VALUE_NESTING containers deep, at a few interpreter frames a level. The caps
# are gradcli's, so Python's limit must sit above them: the run gets a thread with a stack
# big enough for this many frames (pages are touched only as deep as a script goes).
_FRAMES = 30_000
_STACK_BYTES = 768 * 1024 * 1024


def _with_deep_stack(run: Any) -> Any:
    """run() in a thread whose stack and recursion limit hold every script within the caps;
    its exception, if any, is raised here."""
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append((True, run()))
        except BaseException as exc:  # handed to the caller's thread as it was
            outcome.append((False, exc))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _FRAMES))
    try:
        previous = threading.stack_size(_STACK_BYTES)
        try:
            worker = threading.Thread(target=target, name="gradcli-run", daemon=True)
            worker.start()
        finally:
            threading.stack_size(previous)  # only this thread gets the big stack, not pools it starts
        worker.join()
    finally:
        sys.setrecursionlimit(limit)
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _index_lists(elements: tuple) -> tuple:
    """x[range(n), y] and x[torch.arange(n), y] as torch reads them: a range is its list of
    integers, and where several 1-D integer tensors index at once (the binder records one
    index node with at most one tensor operand), their values, known by now, become lists.
    The node is the same IndexBackward0 either way; only where the values came from differs."""
    elements = tuple(list(e) if isinstance(e, range) else e for e in elements)
    tensors = [e for e in elements if isinstance(e, Tensor)]
    if len(tensors) < 2:
        return elements
    return tuple(
        e.value.tolist() if isinstance(e, Tensor) and e.dtype in ("int64", "int32") and e.value.ndim == 1 else e
        for e in elements
    )


def _torch_kind(exc: Exception) -> str:
    """The Python exception torch raises for an engine error: IndexError for an index or a
    class target out of range, RuntimeError for the rest."""
    return "IndexError" if isinstance(exc, IndexOutOfRange) else "RuntimeError"


def _bound(mapping: dict[int, Any], node: ast.AST) -> Any:
    """The script value an operand node of the binder stands for: a placeholder's tensor, or a
    constant the binder wrote itself (clamp's missing bound is an infinite number)."""
    if id(node) in mapping:
        return mapping[id(node)]
    return node.value if isinstance(node, ast.Constant) else None


def _as_tuple(key: Any) -> tuple:
    return key if isinstance(key, tuple) else (key,)


def _parse(source: str) -> ast.Module:
    if len(source) > limits.MAX_PROGRAM_CHARS:
        raise ScriptError(
            f"the script is longer than MAX_PROGRAM_CHARS={limits.MAX_PROGRAM_CHARS:,} characters"
        )
    if "\x00" in source:
        raise ScriptError("the script contains a NUL byte")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source, mode="exec")
    except SyntaxError as exc:
        raise ScriptError(f"line {exc.lineno}, column {exc.offset}: SyntaxError: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise ScriptError(f"the script cannot be parsed: {type(exc).__name__}") from None


def run_script(
    source: str,
    trace_width: int | None = None,
    record: bool = True,
    nodes: tuple[str, ...] = (),
    explain_width: int | None = None,
) -> RunResult:
    """Run a PyTorch-style script in gradcli's interpreter; never raises for the script's own errors.

    trace_width: print each backward call's node table into the output (--trace).
    record: keep each backward call's graph for `backward_calls` (--format json).
    nodes: nodes the trace prints whole, by name (--node), where a call has them.
    explain_width: narrate each backward call into the output (--explain), rules this wide."""
    if not isinstance(source, str):
        raise GradcliError(f"the script must be text, not {type(source).__name__}")
    interpreter = Interpreter(source, trace_width, record or explain_width is not None)
    interpreter.trace_nodes = tuple(nodes)
    interpreter.explain_width = explain_width
    return interpreter.run()
