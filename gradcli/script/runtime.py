"""Define-by-run tensors for `gradcli run`: each op result is a node of a graph that grows.

A Tensor is a view of a Storage (a NumPy array shared with its views, `.data` and
`.detach()`, so a change through one shows through the others, as in PyTorch) and has a
grad_fn, an Fn record of the registry op that made it. Fn records its operands as they
were when it ran (array, grad_fn, requires_grad, version). An in-place write bumps the
version counter and copies the storage first if an op recorded it, so backward either
sees the values an op ran with or, where PyTorch saved the tensor, raises PyTorch's
"modified by an inplace operation" error (`check_saved`).

backward() does not carry derivative rules of its own: the engine's backward walk
(engine.backward_over) follows the grad_fns from the roots by reference, each Fn to its
operands' Fns and leaves (`_flows`), newest first, with the registry's VJP rules and the
tensors' hooks: the same walk and rules `gradcli grad` runs, so both commands share every
VJP and every PyTorch error text, and a backward costs what it reaches. With create_graph
the same rules run on the script's tensors (`Recorded`), so each step is an ordinary op of
the script's graph. The reached part is laid out as a `graph.Graph` only for what narrates
it (--trace, --explain, JSON), whose renderers are grad's.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import autograd, engine
from ..errors import AutogradError, GradcliError, ShapeError
from ..graph import CONST, LEAF, OP, Graph, Literal, Node, copies_to_view, recorded_grad_fn
from ..ops import NUMBER, REGISTRY, TENSOR, dtypes, strides
from ..traced import Traced as TracedValue
from ..traced import Untraceable, WrappedNumber, scalar_overload

FLOAT_DTYPES = ("float32", "float64")
# torch's narrower dtypes: values and arithmetic as torch computes them (each op in float32,
# rounded once to the half dtype), no autograd. NumPy has no bfloat16: its tensors keep float32
# arrays holding bfloat16 values (stored() rounds to nearest even, as c10::BFloat16 does).
HALF_DTYPES = ("float16", "bfloat16")
INTEGER_DTYPES = ("int64", "int32", "int16", "int8", "uint8")
_C_TYPES = {"int8": "int8_t", "int16": "int16_t", "uint8": "uint8_t", "int32": "int", "int64": "int64_t"}
_INTEGER_BITS = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}


def stored(array: Any, dtype: str) -> np.ndarray:
    """An array as a tensor of `dtype` holds it (bfloat16: float32 rounded to its 8 bits of mantissa)."""
    if dtype != "bfloat16":
        return np.asarray(array).astype(dtype, copy=False)
    single = np.array(array, dtype=np.float32)
    bits = single.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(single), np.float32("nan"), rounded).astype(np.float32)


# half ops whose scalar operand (a Python number, a 0-dim float32 tensor) torch rounds to the half
# dtype first; mul and div keep it in float32 (BinaryOpsKernel's original_scalar_value)
_SCALAR_ROUNDED = frozenset({"add", "sub", "rsub"})


def promote_integers(dtypes_seen: set[str]) -> str:
    """torch.promote_types over integer dtypes: the widest, uint8 with int8 is int16."""
    if not dtypes_seen:
        return "int64"
    if dtypes_seen == {"uint8", "int8"}:
        return "int16"
    widest = max(dtypes_seen, key=lambda d: (_INTEGER_BITS[d], d != "uint8"))
    if widest == "uint8" and "int8" in dtypes_seen:
        return "int16"
    return widest


def promote_floats(dtypes_seen: set[str]) -> str:
    """torch.promote_types over floating dtypes: float64 > float32 > the half ones; float16
    with bfloat16 is float32."""
    if "float64" in dtypes_seen:
        return "float64"
    if "float32" in dtypes_seen or {"float16", "bfloat16"} <= dtypes_seen:
        return "float32"
    return next(iter(dtypes_seen)) if dtypes_seen else "float32"
LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation."
NOT_FLOAT = "Only Tensors of floating point and complex dtype can require gradients"
UNUSED = (
    "The differentiated Tensor at index {} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)
NO_REQUIRES = "One of the differentiated Tensors does not require grad"
NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)


class ScriptRuntimeError(GradcliError):
    """An error the script can catch: `kind` is the Python exception class PyTorch raises."""

    def __init__(self, message: str, kind: str = "RuntimeError") -> None:
        super().__init__(message)
        self.kind = kind


_sequence = itertools.count()
INFERENCE = [False]  # inside torch.inference_mode(): tensors made are inference tensors
# inside torch.autograd.graph.saved_tensors_hooks: the innermost's call that packs what a new
# node saves, given the node and its output (saved_tensors.py)
SAVE_HOOKS: list[Callable[[Fn, Tensor], None]] = []
# inside torch.autograd.forward_ad.dual_level(): the call that gives an op's result its tangent
# when an operand has one (forward_ad.py)
DUAL_WRITE = (
    "writing into a dual tensor, or a dual tensor's values into another, by index or copy_ is not "
    "supported by gradcli run (its tangent would not follow)"
)
DUAL_HOOKS: list[Callable[[Any, list, dict, Tensor], None]] = []
def reset_work() -> None:
    """torch's initial state of the modes kept here: no inference mode, no saved-tensor or dual hooks."""
    INFERENCE[0] = False
    SAVE_HOOKS.clear()
    DUAL_HOOKS.clear()


def _meminfo(*keys: str) -> int:
    """The sum of these /proc/meminfo fields, in bytes (0 where there is no such file)."""
    total = 0
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                key, _, rest = line.partition(":")
                if key in keys:
                    total += int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return total


def _physical_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 40


# Below this a tensor is not weighed (reading /proc/meminfo costs more than a small op).
_WEIGHED_BYTES = 1 << 26
# NumPy makes a float32 result through a float64 working copy, and a script's own values sit
# beside it: a tensor may take a third of the memory still available.
_WORKING_COPIES = 3


def check_allocation(count: int, dtype: str) -> None:
    """A tensor of `count` elements of `dtype`, weighed before NumPy allocates it: past the
    memory this machine has available for it, torch's CPU allocator's error, word for word
    (so a script can catch it, and the process is not ended by the kernel's OOM killer)."""
    if count < _WEIGHED_BYTES >> 3:  # under 64 MB whatever the dtype
        return
    nbytes = count * (2 if dtype == "bfloat16" else np.dtype(dtype).itemsize)
    if nbytes < _WEIGHED_BYTES:
        return
    available = _meminfo("MemAvailable", "SwapFree") or _physical_bytes()
    if nbytes * _WORKING_COPIES > available:
        raise ScriptRuntimeError(
            "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: "
            f"you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)"
        )




@dataclass(eq=False)
class Fn:
    """A grad_fn: the op that made a tensor, and its operands as they were then."""

    op: Any  # an ops.Op
    name: str  # PyTorch's grad_fn name: MulBackward0
    attrs: dict
    # Per operand: a Tensor snapshot (tensor, value, grad_fn, requires_grad) or a number.
    operands: tuple
    out: np.ndarray | None = None  # the forward value, for VJPs that use it (exp, sqrt, ...)
    seq: int = field(default_factory=lambda: next(_sequence))
    freed: bool = False
    retained: Tensor | None = None  # the output tensor, when retain_grad() was called
    output: tuple | None = None  # (Version, value) of the output when the op ran
    hooks: dict = field(default_factory=dict)  # register_hook on its output: id -> hook
    # saved tensors under pack hooks (saved_tensors_hooks, _raw_saved_*.register_hooks): name ->
    # the call that unpacks it, run as backward reaches this node (saved_tensors.py)
    packed: dict = field(default_factory=dict)
    integral: frozenset = frozenset()  # positions of Python ints among the number operands
    edges: tuple | None = None  # (position, operand's node) along which a gradient flows (_flows)

    def next_functions(self) -> tuple:
        return tuple(o for o in self.operands if isinstance(o, Operand))


@dataclass(eq=False, slots=True)
class Operand:
    """A tensor as an op recorded it; `at` is its version then (None: PyTorch saved a clone)."""

    tensor: Tensor
    value: np.ndarray
    grad_fn: Fn | None
    requires_grad: bool
    version: Version | None = None
    at: int | None = None


class Storage:
    """Memory shared by a tensor, its views and its `.data` / `.detach()` aliases.

    `generation` changes when the array is replaced (copy-on-write, `.data = ...`), so each
    view re-derives its own array from the new one on its next read."""

    __slots__ = ("base", "generation", "exported")

    def __init__(self, base: np.ndarray) -> None:
        self.base = base
        self.generation = 0
        self.exported = False  # a NumPy array outside shares it (t.numpy(), torch.from_numpy)

    def export(self, version: Version) -> None:
        """A NumPy array outside now shares this memory, as in torch. Copy-on-write would part
        the two, so the ops that recorded the array keep it and the memory shared is a copy;
        from now on an op that records a tensor of this storage copies its operand instead."""
        if version.recorded:
            self.base = self.base.copy()
            self.generation += 1
            version.recorded = False
        self.exported = True


class Version:
    """PyTorch's version counter: shared by a tensor, its views and detach(), not by .data.

    `recorded` says an op kept a reference to the current array: the next in-place write
    copies the storage first, so that op keeps the values it ran with (PyTorch errors
    instead when it needs them, which `check_versions` reproduces)."""

    __slots__ = ("value", "recorded")

    def __init__(self) -> None:
        self.value = 0
        self.recorded = False


OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."
NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given "
    "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
    "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
    "inplace to be tracked) or both outside (if you want the inplace to be tracked)."
)
VIEW_SIZE = (
    "view size is not compatible with input tensor's size and stride (at least one dimension spans "
    "across two contiguous subspaces). Use .reshape(...) instead."
)
MODIFIED = (
    "one of the variables needed for gradient computation has been modified by an inplace operation: "
    "[{what}]{which} is at version {now}; expected version {then} instead. Hint: enable anomaly "
    "detection to find the operation that failed to compute its gradient, with "
    "torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


class ScriptError(GradcliError):
    """Something gradcli's torch does not model: the run ends with its message (the bridge
    raises it as NotInGradcli)."""


def source_position(node: Any) -> str:
    return f"line {getattr(node, 'lineno', 1)}, column {getattr(node, 'col_offset', 0) + 1}"


_DTYPE_NAMES: dict[np.dtype, str] = {}


def dtype_name(dtype: np.dtype) -> str:
    """str(dtype), remembered: NumPy builds the name anew each time (a few µs an op)."""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = str(dtype)
    return name


class Tensor:
    """A tensor of a script: a view of a storage (`steps` from the storage's array), with
    dtype, requires_grad, grad and grad_fn."""

    def __init__(
        self,
        value: np.ndarray,
        *,
        dtype: str | None = None,
        requires_grad: bool = False,
        grad_fn: Fn | None = None,
    ) -> None:
        array = np.asarray(value)
        if not array.flags.c_contiguous:  # views address the storage by C-order element offsets
            array = np.ascontiguousarray(array)
        named = dtype_name(array.dtype)
        self.dtype = dtype or named
        if self.dtype != named or self.dtype == "bfloat16":
            array = stored(array, self.dtype)
        self.storage = Storage(array)
        self.steps: tuple = ()  # functions from the storage's array to this tensor's (views)
        self.version = Version()
        self.inference = INFERENCE[0]  # made under inference_mode: no version counter to read
        self.view_of: Tensor | None = None  # the base of a view (not of detach() or .data)
        self.view_grad_mode = True  # whether grad mode was on when the view was made
        self.view_writes = 0  # the base's recorded in-place writes when the view was made
        self.autograd_writes = 0  # recorded in-place writes on this (base) tensor
        self._array = array
        self._generation = 0
        self.requires_grad = requires_grad
        self.grad_fn = grad_fn
        self._grad: Tensor | None = None
        self.retains_grad = False
        self.hooks: dict[int, Any] = {}  # a leaf's register_hook: id -> (grad array -> array or None)
        self.post_hooks: dict[int, Any] = {}  # register_post_accumulate_grad_hook: id -> (tensor -> None)
        self.accumulator: Any = None  # its AccumulateGrad node, once next_functions showed it
        self.tangent: Tensor | None = None  # forward AD's tangent, inside a dual level (forward_ad.py)

    @classmethod
    def alias(cls, source: Tensor, step: Any = None, *, share_version: bool = True) -> Tensor:
        """A tensor on `source`'s storage: its view through `step`, or the same elements."""
        t = cls.__new__(cls)
        t.dtype = source.dtype
        t.storage = source.storage
        if step is None:
            t.steps = source.steps
        else:  # the view made here is the one its step gives this generation of the storage
            view = step(source.value)
            t.steps = (_strided(view, source.storage.base),)
        t.version = source.version if share_version else Version()
        t.inference = source.inference or INFERENCE[0]
        t.view_of = None
        t.view_grad_mode = True
        t.view_writes = 0
        t.autograd_writes = 0
        t._generation = -1
        if step is not None and view.size:  # no need to derive it again on the first read
            t._array, t._generation = view, source.storage.generation
        t.requires_grad = False
        t.grad_fn = None
        t._grad = None
        t.retains_grad = False
        t.hooks = {}
        t.post_hooks = {}
        t.accumulator = None
        t.tangent = None
        return t

    @property
    def value(self) -> np.ndarray:
        storage = self.storage
        if self._generation != storage.generation:
            array = storage.base
            for step in self.steps:
                array = step(array)
            self._array, self._generation = array, storage.generation
        return self._array

    @property
    def shape(self) -> tuple[int, ...]:
        return self.value.shape

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def stale_view(self) -> bool:
        """A view whose base was changed in place by a recorded op since the view was taken:
        PyTorch regenerates its grad_fn (AsStridedBackward0 of the new base)."""
        base = self.view_of
        return (
            base is not None
            and (self.grad_fn is not None or base.requires_grad)
            and base.autograd_writes != self.view_writes
        )

    def refresh_view(self) -> None:
        """Give a stale view PyTorch's regenerated grad_fn: its region read out of the base."""
        if not self.stale_view:
            return
        base = self.view_of
        assert base is not None
        if base.steps:
            raise ScriptError(
                "a view of a .data or detach() alias whose base was modified in place by a recorded "
                "operation cannot be used in a graph yet; take the view again after the update"
            )
        from .writes import VIEW_AFTER_WRITE

        attrs = {"steps": self.steps, "index": Ellipsis, "shape": self.shape}
        fn = Fn(VIEW_AFTER_WRITE, "AsStridedBackward0", attrs, (base.snapshot(),), self.value)
        self.grad_fn, self.requires_grad = fn, True
        fn.output = (self.version, self.version.value)
        self.view_writes = base.autograd_writes

    def snapshot(self) -> Operand:
        self.refresh_view()
        value = self.value
        if self.storage.exported:  # a NumPy array shares the memory: the op keeps a copy
            value = value.copy()
        else:
            self.version.recorded = True
        return Operand(self, value, self.grad_fn, self.requires_grad, self.version, self.version.value)

    def set_requires_grad(self, flag: bool) -> None:
        if not self.is_leaf:
            raise ScriptRuntimeError(
                "you can only change requires_grad flags of leaf variables."
                + (
                    ""
                    if flag
                    else " If you want to use a computed variable in a subgraph that doesn't require "
                    "differentiation use var_no_grad = var.detach()."
                )
            )
        if flag and self.dtype in HALF_DTYPES:
            raise ScriptError(f"autograd of {self.dtype} tensors is not supported by gradcli run")
        if flag and self.dtype not in FLOAT_DTYPES:
            raise ScriptRuntimeError(NOT_FLOAT)
        self.requires_grad = bool(flag)

    def write(self, values: Any, index: Any = Ellipsis) -> None:
        """In place: the new values go into the storage, so every view and alias sees them,
        and the version counter moves on (as each PyTorch in-place op does)."""
        if self.version.recorded:  # copy-on-write: recorded ops keep the values they ran with
            self.storage.base = self.storage.base.copy()
            self.storage.generation += 1
            self.version.recorded = False
        target = self.value
        parts = index if isinstance(index, tuple) else (index,)
        basic = all(isinstance(p, (int, slice)) or p is None or p is Ellipsis for p in parts)
        written = target[index] if basic else target
        if written.size > 1 and any(s == 0 and n > 1 for s, n in zip(written.strides, written.shape)):
            raise ScriptRuntimeError(OVERLAP)
        if DUAL_HOOKS and (self.tangent is not None or isinstance(values, Tensor) and values.tangent is not None):
            raise ScriptError(DUAL_WRITE)
        values = values.value if isinstance(values, Tensor) else values
        if self.dtype == "bfloat16":
            values = stored(values, "bfloat16")
        if isinstance(values, np.ndarray) and values.dtype == target.dtype:  # no cast: nothing to warn of
            target[index] = values
        else:
            self._cast_into(target, index, values)
        self.version.value += 1

    def _cast_into(self, target: np.ndarray, index: Any, values: Any) -> None:
        """target[index] = values with NumPy's cast, its warnings silenced, overflow in torch's words."""
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                target[index] = values
            except OverflowError:  # x[0] = 200 into int8: torch's words
                raise ScriptRuntimeError(
                    f"value cannot be converted to type {_C_TYPES.get(self.dtype, self.dtype)} without overflow"
                ) from None

    def assign(self, value: np.ndarray) -> None:
        """In place, the whole tensor (same dtype, same shape)."""
        self.write(stored(value, self.dtype))

    def rebind(self, other: Tensor) -> None:
        """`x.data = y`: x now shares y's elements (its views keep the old ones)."""
        self.storage, self.steps, self.dtype = other.storage, other.steps, other.dtype
        self._generation = -1


def _strided(view: np.ndarray, base: np.ndarray) -> Any:
    """A view as one step from its storage's (C-contiguous) array: offset, shape and strides in
    elements, so `x = x[0:9]` in a loop keeps one step, not a chain, and the step still
    applies to the storage's copy after copy-on-write."""
    shape = view.shape
    if view.size == 0:
        dtype = view.dtype
        return lambda a: np.empty(shape, dtype=dtype)
    size = base.itemsize
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // size
    strides = tuple(s // size for s in view.strides)

    def step(a: np.ndarray) -> np.ndarray:
        flat = a.reshape(-1)[offset:]
        return np.lib.stride_tricks.as_strided(flat, shape, tuple(s * size for s in strides), writeable=True)

    return step


def view_step(name: str, attrs: dict, source: np.ndarray, shape: tuple[int, ...]) -> Any:
    """How a view op reads its result out of its operand's array, or None when PyTorch copies.

    The step is re-applied to a fresh array after copy-on-write, so it must be a pure
    function of the operand's array; each returns a NumPy view (never a copy)."""
    ndim = source.ndim
    if name == "select":
        dim = attrs["dim"] % ndim
        index = attrs["index"]
        return lambda a: a[(slice(None),) * dim + (index, Ellipsis)]  # a 0-d view, not a scalar
    if name == "slice":
        dim = attrs["dim"] % ndim
        part = slice(attrs["start"], attrs["end"], attrs["step"])
        return lambda a: a[(slice(None),) * dim + (part,)]
    if name in ("T", "t", "mT"):
        return lambda a: a.T if name != "mT" else np.swapaxes(a, -1, -2)
    if name == "permute":
        dims = tuple(d % ndim for d in attrs["dims"])
        return lambda a: np.transpose(a, dims)
    if name == "transpose":
        if ndim == 0:
            return lambda a: a
        d0, d1 = attrs["dim0"] % ndim, attrs["dim1"] % ndim
        return lambda a: np.swapaxes(a, d0, d1)
    if name in ("squeeze", "unsqueeze", "reshape", "view", "flatten"):
        try:
            np.reshape(source, shape, copy=False)
        except ValueError:
            if name == "view":
                raise ScriptRuntimeError(VIEW_SIZE) from None
            return None  # reshape/flatten of a non-contiguous tensor copy, as in PyTorch
        return lambda a: np.reshape(a, shape, copy=False)
    if name == "expand":
        lead = len(shape) - ndim

        def expand(a: np.ndarray) -> np.ndarray:
            strides = [0] * lead + [s if n == m else 0 for s, n, m in zip(a.strides, a.shape, shape[lead:])]
            return np.lib.stride_tricks.as_strided(a, shape, strides, writeable=True)

        return expand
    if name == "detach":
        return lambda a: a
    return None


VIEW_OPS = {
    "select",
    "slice",
    "T",
    "t",
    "mT",
    "permute",
    "transpose",
    "squeeze",
    "unsqueeze",
    "reshape",
    "view",
    "flatten",
    "expand",
    "detach",
}


def result_dtype(op: Any, tensors: list[Tensor], numbers: list[Any], attrs: dict | None = None) -> str:
    """torch's dtype of the op's result, by the registry's rules (ops/dtypes.py, which the
    graph reads too): an integer or bool result where torch keeps one (a @ b of int64, max,
    cat, clamp with whole bounds, relu, sign, bool + bool), else floating: float64 if any
    operand is, else torch's default float32."""
    if op.name == "_to_copy":  # x.double(): the one op whose result names its precision
        return (attrs or {})["dtype"]
    kinds = [_KINDS.get(t.dtype, dtypes.FLOAT) for t in tensors] + [dtypes.NUMBER] * len(numbers)
    # a Python float makes an integer result floating (torch.arange(3) * 2.0), a whole int not
    values = [0.5 if isinstance(n, float) else float(n) for n in numbers]
    kind = dtypes.result_dtype(op, kinds, values, attrs)
    if kind == dtypes.INT64:  # the integer tensors' own dtype (int32, int16, ...) unless the op widens
        if dtypes.widens_integers(op):
            return "int64"
        return promote_integers(_leading(tensors, INTEGER_DTYPES))
    if kind == dtypes.BOOL:
        return kind
    return promote_floats(_leading(tensors, FLOAT_DTYPES + HALF_DTYPES))


def _leading(tensors: list[Tensor], kinds: tuple[str, ...]) -> set[str]:
    """The dtypes of one category that decide a result (c10's ResultTypeState): those of
    tensors with dimensions, or, if none has one of the category, those of 0-dim tensors
    (torch.ones(3) + torch.tensor(1.0, dtype=torch.float64) stays float32)."""
    shaped = {t.dtype for t in tensors if t.dtype in kinds and t.value.ndim > 0}
    return shaped or {t.dtype for t in tensors if t.dtype in kinds}


_KINDS = {name: dtypes.INT64 for name in INTEGER_DTYPES} | {"bool": dtypes.BOOL}


def check_dtypes(op: Any, operands: list[Any]) -> None:
    """torch's refusals by dtype (a float class-index target, an int matrix in @ with a float
    one, a float mask), by the registry's rules, named as torch names a float32 tensor."""
    kinds = [_KINDS.get(o.dtype, dtypes.FLOAT) if isinstance(o, Tensor) else dtypes.NUMBER for o in operands]
    single = any(isinstance(o, Tensor) and o.dtype == "float32" for o in operands)
    dtypes.check(op, kinds, single=single)


def element_strides(t: Tensor) -> tuple[int, ...]:
    """A tensor's strides in elements, as torch reports them (a contiguous one: torch's own)."""
    if t.value.flags.c_contiguous:
        return strides.contiguous(t.shape)
    return tuple(s // t.value.itemsize for s in t.value.strides)


# What an op's call decides from its operands' kinds alone, worked out once: its result's shape
# (for ops without attributes) and its dtype after torch's dtype checks. Bounded: a script that
# calls with ever new shapes starts the memo afresh.
_SHAPES: dict[tuple, Any] = {}
_DTYPES: dict[tuple, str] = {}
_MEMO_SIZE = 4096


def remember(memo: dict, key: tuple, value: Any) -> None:
    if len(memo) >= _MEMO_SIZE:
        memo.clear()
    memo[key] = value


def _dtype_key(op: Any, operands: list[Any], shapes: list[tuple]) -> tuple | None:
    """What decides an op's result dtype and torch's dtype checks (ops/dtypes.py): each
    tensor's dtype and whether it has dimensions, whether each number is a float. None where
    the attributes decide too (a constructor's dtype=, rounding_mode) or a number is NumPy's."""
    if op.new_dtype is not None or op.name == "_div_rounded":
        return None
    key: list[Any] = [op.name]
    for o, shape in zip(operands, shapes):
        if isinstance(o, Tensor):
            key.append(o.dtype)
            key.append(len(shape) > 0)
        else:
            kind = type(o)
            if kind is not float and kind is not int and kind is not bool:
                return None
            key.append(kind is float)
    return tuple(key)


def apply_op(name: str, operands: list[Any], attrs: dict, grad_enabled: bool) -> Tensor | float:
    """Run one registry op on tensors and numbers; record it when it needs a gradient."""
    op = REGISTRY[name]
    tensors, numbers, shapes = [], [], []
    for o in operands:  # one pass: this runs for every op a script records
        if isinstance(o, Tensor):
            tensors.append(o)
            shapes.append(o.shape)
        else:
            numbers.append(o)
            shapes.append(())
    if op.from_values is not None:  # F.one_hot(y): num_classes read from y's values
        attrs = op.from_values(
            attrs, lambda k: operands[k].value if isinstance(operands[k], Tensor) else operands[k]
        )
    # the result's shape (ShapeError in PyTorch's words, before computing), worked out once per
    # operand shapes and attributes (with their types: dim=True is not dim=1), as a loop asks
    shape_key = (name, *shapes, *attrs.items(), *map(type, attrs.values())) if attrs else (name, *shapes)
    try:
        shape = _SHAPES.get(shape_key)
    except TypeError:  # an attribute that is not hashable (an index array): no memo
        shape_key, shape = None, None
    if shape is None:
        shape = op.shape(shapes, attrs)
        if shape_key is not None:
            remember(_SHAPES, shape_key, shape)
    layout = None  # a reshape's operand's strides: viewing one not contiguous is ReshapeAliasBackward0
    if op.viewing == "reshape" and isinstance(operands[0], Tensor):
        layout = element_strides(operands[0])
        if copies_to_view(op, operands[0].shape, layout, tuple(shape)):
            # as the graph does (graph.py): torch copies what cannot be viewed, then views the copy
            copy = apply_op("clone", [operands[0]], {}, grad_enabled)
            return apply_op("_unsafe_view", [copy], {"size": tuple(shape)}, grad_enabled)
    dtype_key = _dtype_key(op, operands, shapes)
    dtype = _DTYPES.get(dtype_key) if dtype_key is not None else None
    if dtype is None:
        check_dtypes(op, operands)
        dtype = result_dtype(op, tensors, numbers, attrs)
        if dtype_key is not None:
            remember(_DTYPES, dtype_key, dtype)
    check_allocation(math.prod(shape), dtype)
    compute = "float64" if dtype == "float64" else "float32"
    integral = dtype in INTEGER_DTYPES or dtype == "bool"
    half_rounded = dtype in HALF_DTYPES and name in _SCALAR_ROUNDED
    wrapped_int = dtype in INTEGER_DTYPES and dtype not in ("int64", "int32")
    as_float = dtype not in ("int64", "int32")
    args = []
    for o in operands:
        if isinstance(o, Tensor):
            v = o.value
            kind = v.dtype.kind
            narrow = v.dtype == np.float16 and not integral  # half ops run in float32, rounded once
            if half_rounded and o.dtype in FLOAT_DTYPES:
                v = stored(v, dtype).astype(np.float32)
            args.append(v.astype(compute) if (kind in "biu" or narrow) and not integral else v)
        elif wrapped_int and isinstance(o, int):
            args.append(np.asarray(o, dtype=np.int64).astype(dtype))  # torch wraps the number to int16
        elif half_rounded:  # 0.1 is 0.09998 in float16 there
            args.append(float(stored(np.float32(o), dtype).astype(np.float32)))
        else:
            args.append(float(o) if as_float else o)
    if op.gives_mask and tensors and all(t.dtype in INTEGER_DTYPES for t in tensors):
        # torch compares in the operands' common dtype: uint8 < -1 compares with 255
        common = promote_integers(_leading(tensors, INTEGER_DTYPES))
        args = [np.asarray(a, dtype=np.int64).astype(common) if np.ndim(a) == 0 and not isinstance(o, Tensor)
                else np.asarray(a).astype(common) for a, o in zip(args, operands)]
    if dtype == "float32":  # exp, tanh ...: double, rounded once, as torch's kernels land
        args = dtypes.widened(name, args)
    elif dtype == "float64":  # tanh, sinh ...: extended precision, rounded once
        args = dtypes.extended(name, args)
    with np.errstate(all="ignore"):
        out = np.asarray(op.forward(*args, **attrs))
    if dtype == "bool":
        out = out.astype(bool)
    if dtype in HALF_DTYPES:
        out = stored(out, dtype)
    out = out.astype(dtype if dtype not in ("float32", "bfloat16") or out.dtype != np.float32 else out.dtype, copy=False)
    if out.shape != tuple(shape):
        out = np.broadcast_to(out, shape).copy()
    requires = False
    if grad_enabled and op.differentiable:
        for t in tensors:
            if t.requires_grad:
                requires = True
                break
    if requires and dtype in HALF_DTYPES:
        raise ScriptError(f"autograd of {dtype} tensors is not supported by gradcli run")
    step = None
    if name in VIEW_OPS and len(tensors) == 1 and operands[0] is tensors[0]:
        step = view_step(name, attrs, tensors[0].value, tuple(shape))
    if step is not None:  # a view: the result reads (and writes) its operand's storage
        source = tensors[0]
        result = Tensor.alias(source, step)
        base = source.view_of or source
        result.view_of, result.view_grad_mode, result.view_writes = base, grad_enabled, base.autograd_writes
    else:
        if out.base is not None and any(np.may_share_memory(out, t.value) for t in tensors):
            out = out.copy()  # a forward that returned a NumPy view must not alias a storage
        result = Tensor(out, dtype=dtype)
    if DUAL_HOOKS and any(t.tangent is not None for t in tensors):
        DUAL_HOOKS[-1](op, operands, attrs, result)
    if not requires:
        return result
    kinds = [TENSOR if isinstance(o, Tensor) else NUMBER for o in operands]
    recorded = tuple([o.snapshot() if isinstance(o, Tensor) else float(o) for o in operands])
    grad_fn = recorded_grad_fn(op, kinds, shapes, attrs, layout)
    fn = Fn(op, grad_fn, dict(attrs), recorded, out)
    if numbers:
        fn.integral = frozenset(p for p, o in enumerate(operands) if isinstance(o, int) and not isinstance(o, bool))
    result.requires_grad, result.grad_fn = True, fn
    fn.output = (result.version, result.version.value)
    if step is None:
        result.version.recorded = True  # fn.out is this tensor's array
    if SAVE_HOOKS:
        SAVE_HOOKS[-1](fn, result)
    return result


# ---------------------------------------------------------------- backward


@dataclass
class _Laid:
    graph: Graph
    values: list[np.ndarray]
    leaves: dict[int, Tensor]  # node index -> leaf tensor that requires grad
    fn_index: dict[int, int]  # id(Fn) -> node index
    fns: list[Fn]
    roots: list[int | None] = field(default_factory=list)  # each backward root's node


class _Namer:
    """Node names for tables: the script's variable for a tensor or grad_fn, else t<N>."""

    def __init__(self, names: dict[int, str] | None) -> None:
        self.names = names or {}
        self.used: set[str] = set()

    def __call__(self, key: int, index: int) -> str:
        name = self.names.get(key)
        if name is None or name in self.used:
            name = f"t{index}"
            while name in self.used or name in self.names.values():
                name = f"t{index}_{len(self.used)}"
        self.used.add(name)
        return name


def _lay_out(roots: list[Tensor], names: dict[int, str] | None = None) -> _Laid:
    """The part of the growing graph that backward from `roots` reaches, as a graph.Graph for
    the narrations (--trace, --explain, JSON read it as grad's renderers do; the backward
    itself walks the grad_fns): its output is the first root, `_Laid.roots` each root's node.

    `names` maps id(tensor) of inputs and id(grad_fn) of ops to the script's variable names."""
    name = _Namer(names)
    fns: dict[int, Fn] = {}
    stack = [r.grad_fn for r in roots if r.grad_fn is not None]
    while stack:  # iterative: a 10,000-step chain must not exhaust Python's recursion
        fn = stack.pop()
        if id(fn) in fns:
            continue
        fns[id(fn)] = fn
        for operand in fn.next_functions():
            if operand.grad_fn is not None:
                stack.append(operand.grad_fn)
    nodes: list[Node] = []
    values: list[np.ndarray] = []
    leaves: dict[int, Tensor] = {}
    leaf_index: dict[int, int] = {}

    def add_input(tensor: Tensor, value: np.ndarray, requires_grad: bool, key: int) -> None:
        index = len(nodes)
        leaf_index[key] = index
        kind = LEAF if requires_grad else CONST
        nodes.append(Node(index, name(id(tensor), index), kind, value.shape, requires_grad))
        values.append(value)
        if requires_grad:
            leaves[index] = tensor

    for root in roots:  # x.backward() on a leaf: the leaf is its own graph
        if root.grad_fn is None and root.requires_grad and id(root) not in leaf_index:
            add_input(root, root.value, True, id(root))
    ordered = sorted(fns.values(), key=lambda f: f.seq)
    for fn in ordered:  # leaves and constants first: they exist before any op uses them
        for operand in fn.next_functions():
            if operand.grad_fn is not None:
                continue
            key = id(operand.tensor) if operand.requires_grad else id(operand)
            if key not in leaf_index:
                add_input(operand.tensor, operand.value, operand.requires_grad, key)
    fn_index: dict[int, int] = {}
    for fn in ordered:
        operands = []
        for operand in fn.operands:
            if not isinstance(operand, Operand):
                operands.append(Literal(operand, None))
            elif operand.grad_fn is not None:
                operands.append(fn_index[id(operand.grad_fn)])
            else:
                operands.append(leaf_index[id(operand.tensor) if operand.requires_grad else id(operand)])
        index = len(nodes)
        fn_index[id(fn)] = index
        # the node's shape is its recorded output's (the op's shape rule gave it when it ran)
        shape = np.shape(fn.out) if fn.out is not None else _output_shape(fn, nodes, operands)
        nodes.append(
            Node(index, name(id(fn), index), OP, shape, True, fn.op, tuple(operands), fn.attrs, fn.name)
        )
        values.append(fn.out)
    at = [fn_index[id(r.grad_fn)] if r.grad_fn is not None else leaf_index.get(id(r)) for r in roots]
    output = at[0] if at[0] is not None else 0
    return _Laid(Graph(None, tuple(nodes), output), values, leaves, fn_index, ordered, at)


def _output_shape(fn: Fn, nodes: list[Node], operands: list) -> tuple[int, ...]:
    shapes = [nodes[o].shape if isinstance(o, int) else () for o in operands]
    return fn.op.shape(shapes, fn.attrs)


def no_grad_error(position: int) -> str:
    return f"element {position} of tensors does not require grad and does not have a grad_fn"


def run_backward(
    roots: list[Tensor],
    gradients: list[Tensor | None],
    retain_graph: bool,
    inputs: list[Tensor] | None = None,
    record: Traced | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
    only: list[Tensor] | None = None,
) -> list[np.ndarray | Tensor | None] | None:
    """One backward pass from `roots` (each with its upstream gradient, as
    torch.autograd.backward takes sequences): accumulate leaves' .grad (inputs=None) or
    return the gradients of `inputs` (torch.autograd.grad, None for an unused input when
    allow_unused; `only`: backward(inputs=...), the leaves that get a .grad). PyTorch's
    checks, in PyTorch's order.

    The walk is the engine's, over the grad_fns the roots reach, by reference (`_Reached`):
    it costs what it reaches, however big the rest of the script's graph. With create_graph
    the gradients are script tensors with grad_fns of their own (the registry's VJP rules run
    on traced values, gradcli/traced.py), so a later statement can differentiate them again."""
    if len(gradients) != len(roots):
        raise AutogradError(f"got {len(roots)} tensors and {len(gradients)} gradients")
    dtype = np.dtype(roots[0].dtype if roots[0].dtype in FLOAT_DTYPES else "float32")
    seeds: list[np.ndarray] = []
    for position, (root, gradient) in enumerate(zip(roots, gradients)):  # torch's _make_grads
        shape = root.shape
        if gradient is not None and gradient.shape != shape:
            raise AutogradError(
                f"Mismatch in shape: grad_output[{position}] has a shape of "
                f"{autograd.torch_size(gradient.shape)} and output[{position}] has a shape of "
                f"{autograd.torch_size(shape)}."
            )
        if gradient is None and root.requires_grad and math.prod(shape) != 1:
            raise AutogradError(autograd.NOT_SCALAR)
        kind = np.dtype(root.dtype if root.dtype in FLOAT_DTYPES else "float32")
        seeds.append(
            np.ones(shape, dtype=kind) if gradient is None else np.asarray(gradient.value, dtype=kind)
        )
    for position, root in enumerate(roots):
        if not root.requires_grad:
            raise AutogradError(no_grad_error(position))
    if inputs is not None:
        for tensor in inputs:
            if not tensor.requires_grad:
                raise AutogradError(NO_REQUIRES)
    reached = _Reached(roots)
    check_saved(reached.fns)
    hooks = {t: list(t.hooks.values()) for t in reached.leaves if t.hooks}
    hooks.update({fn: list(fn.hooks.values()) for fn in reached.fns if fn.hooks})
    # --trace / --explain narrate this call: keep what each edge carried as backward runs
    carried: dict[tuple[Any, int], np.ndarray] | None = {} if record is not None else None
    on_edge = None if carried is None else autograd.edge_recorder(carried, by_index=False)
    if create_graph:
        adjoints = _create_graph_sweep(reached, roots, seeds, gradients, dtype, hooks, on_edge)
    else:
        adjoints = _sweep(reached, roots, seeds, dtype, hooks, on_edge)
    if record is not None:
        _record(record, _lay_out(roots, record.names), adjoints, carried, seeds[0], dtype)
    if inputs is not None and not allow_unused:  # torch refuses before it frees anything
        for position, tensor in enumerate(inputs):
            if adjoints.get(_node_of(tensor)) is None:
                raise AutogradError(UNUSED.format(position))
    if not retain_graph:
        for fn in reached.fns:
            fn.freed = True
    if inputs is not None:
        found = []
        for tensor in inputs:
            adjoint = adjoints.get(_node_of(tensor))
            if adjoint is not None and not create_graph:
                adjoint = np.asarray(adjoint, dtype=tensor.dtype)
            found.append(adjoint)
            if record is not None:
                record.inputs.append(_input_index(record.laid, tensor))
        return found
    for tensor in reached.accumulation_order():
        if only is not None and not any(tensor is t for t in only):
            continue
        adjoint = adjoints.get(tensor)
        if adjoint is not None:
            if create_graph:
                accumulate_graph(tensor, adjoint, "CopyBackwards")
            else:
                accumulate(tensor, np.asarray(adjoint, dtype=tensor.dtype))
            for hook in list(tensor.post_hooks.values()):  # register_post_accumulate_grad_hook
                hook(tensor)
    # backward(inputs=[w]) with a non-leaf w: torch gives w a .grad, and runs only the nodes
    # on a path to an input, so only their retained tensors (retain_grad) get one
    targets = {} if only is None else {t.grad_fn: t for t in only if not t.is_leaf}
    needed = None if only is None else reached.on_a_path(set(targets) | {t for t in only if t.is_leaf})
    for fn in reached.fns:
        found_adjoint = adjoints.get(fn)
        if found_adjoint is None or (needed is not None and fn not in needed):
            continue
        for tensor in {id(t): t for t in (fn.retained, targets.get(fn)) if t is not None}.values():
            if create_graph:
                accumulate_graph(tensor, found_adjoint, "CloneBackward0")
            else:
                accumulate(tensor, np.asarray(found_adjoint, dtype=tensor.dtype))
    return None


def _node_of(tensor: Tensor) -> Any:
    """A tensor's node in a backward walk: its grad_fn, or the leaf itself (its AccumulateGrad)."""
    return tensor.grad_fn if tensor.grad_fn is not None else tensor


def _flows(node: Any) -> tuple:
    """The edges a gradient takes out of a node of a script's graph (engine.Flows): from a
    grad_fn to each operand that requires grad, by reference (the operand's grad_fn, or the
    leaf tensor); none out of a leaf. Fixed when the op ran, so worked out once per node."""
    if type(node) is not Fn:
        return ()
    edges = node.edges
    if edges is None:
        edges = node.edges = tuple(
            (position, operand.grad_fn if operand.grad_fn is not None else operand.tensor)
            for position, operand in enumerate(node.operands)
            if type(operand) is Operand and operand.requires_grad
        )
    return edges


class _Reached:
    """The part of a script's graph a backward from `roots` reaches, found by following node
    references from the roots (engine.reach): its grad_fns in creation order (topological)
    and its leaves, the roots' own first, then in order of first use, as torch meets them."""

    def __init__(self, roots: list[Tensor]) -> None:
        found = engine.reach([_node_of(r) for r in roots if r.requires_grad], _flows)
        self.fns: list[Fn] = sorted((n for n in found if type(n) is Fn), key=lambda fn: fn.seq)
        self.first_use: dict[Tensor, tuple[int, int]] = {}
        for fn in self.fns:
            for position, operand in _flows(fn):
                if type(operand) is not Fn and operand not in self.first_use:
                    self.first_use[operand] = (fn.seq, position)
        root_leaves = {id(r): n for n, r in enumerate(roots) if r.grad_fn is None}
        self.leaves: list[Tensor] = sorted(
            (n for n in found if type(n) is not Fn),
            key=lambda t: (0, root_leaves[id(t)], 0) if id(t) in root_leaves else (1, *self.first_use[t]),
        )

    def order(self) -> list:
        """The walk's order: each node before its operands (grad_fns newest first, then leaves)."""
        return [*reversed(self.fns), *reversed(self.leaves)]

    def accumulation_order(self) -> list[Tensor]:
        """The leaves in the order torch's engine accumulates their .grad: its ready queue runs
        later-made nodes first, and a leaf's AccumulateGrad as soon as the earliest-made op that
        uses it has run (so after that op's other operands before it, in operand order)."""
        return sorted(
            self.leaves,
            key=lambda t: (0, -self.first_use[t][0], self.first_use[t][1]) if t in self.first_use else (1, 0, 0),
        )

    def on_a_path(self, inputs: set) -> set:
        """The nodes on a path from the roots down to one of `inputs` (the nodes torch's engine
        runs for backward(inputs=...)): an input, or a node with such a node below it."""
        found = {leaf for leaf in self.leaves if leaf in inputs}
        for fn in self.fns:  # operands first
            if fn in inputs or any(operand in found for _, operand in _flows(fn)):
                found.add(fn)
        return found


def _fn_pullback(dtype: np.dtype) -> engine.Pullback:
    """The array domain's chain-rule step at a script's grad_fn: the registry VJP rules on the
    values the op ran with (autograd.vjp_edge, as grad's pullback)."""

    def pull(fn: Fn, g: Any, positions: list[int]) -> Any:
        autograd.refuse_unimplemented(fn.name, fn.op)
        if fn.packed:  # saved tensors under pack hooks: unpacked as the node runs, before its rule
            for unpack in fn.packed.values():
                unpack()
        operands = fn.operands
        args = [o.value if type(o) is Operand else o for o in operands]
        out, op, attrs = fn.out, fn.op, fn.attrs
        if len(positions) == 1:
            position = positions[0]
            return (autograd.vjp_edge(op, attrs, g, out, args, position, operands[position].value.shape, dtype),)
        # lazily: each contribution is added into its operand before the next is made
        return (autograd.vjp_edge(op, attrs, g, out, args, p, operands[p].value.shape, dtype) for p in positions)

    return pull


def _sweep(
    reached: _Reached,
    roots: list[Tensor],
    seeds: list,
    dtype: np.dtype,
    hooks: dict,
    on_edge: engine.EdgeHook | None,
) -> dict:
    """The engine's backward walk from several roots at once (one seed each, summed where two
    roots are one node), with each hooked node's gradient passed through its hooks (in the
    order they were registered) before it flows on, as PyTorch's tensor hooks do."""
    with np.errstate(all="ignore"):
        return engine.backward_over(
            reached.order(),
            [(_node_of(root), seed) for root, seed in zip(roots, seeds)],
            _flows,
            _fn_pullback(dtype),
            hooks=hooks,
            on_edge=on_edge,
        )


def _record(
    record: Traced,
    laid: _Laid,
    adjoints: dict,
    carried: dict | None,
    seed: np.ndarray,
    dtype: np.dtype,
) -> None:
    """What --trace, --explain and --format json show of the call: the reached graph laid out
    for the renderers (names, values, adjoints and edges by node index)."""
    fn_at = {index: fn for fn in laid.fns for index in (laid.fn_index[id(fn)],)}
    by_index: list[Any] = []
    for node in laid.graph.nodes:
        key = laid.leaves.get(node.index) if node.kind == LEAF else fn_at.get(node.index)
        adjoint = None if key is None else adjoints.get(key)
        by_index.append(adjoint.value if isinstance(adjoint, Tensor) else adjoint)
    record.laid, record.adjoints, record.seed, record.dtype = laid, by_index, seed, str(dtype)
    record.edges = {(laid.fn_index[id(fn)], position): value for (fn, position), value in (carried or {}).items()}
    record.before = {i: _grad_copy(t) for i, t in laid.leaves.items()}


def _input_index(laid: _Laid, tensor: Tensor) -> int | None:
    """The graph node of an input of torch.autograd.grad, or None if the call does not reach it."""
    if tensor.grad_fn is not None:
        return laid.fn_index.get(id(tensor.grad_fn))
    return next((i for i, t in laid.leaves.items() if t is tensor), None)


def _create_graph_sweep(
    reached: _Reached, roots: list[Tensor], seeds: list, gradients: list, dtype: np.dtype, hooks: dict,
    on_edge: engine.EdgeHook | None,
) -> dict:
    """backward(create_graph=True): the same walk, with the registry's VJP rules run on the
    script's tensors (`Recorded`), so each step of a rule is recorded as an ordinary op of
    the script's graph and the gradients are tensors with grad_fns, as torch's are. The
    adjoints by reference, as tensors (or arrays where no graph reaches them)."""
    recorder = Recorder(dtype)
    started = []
    for seed, gradient, root in zip(seeds, gradients, roots):
        given = gradient is not None and gradient.value.dtype == seed.dtype
        started.append((_node_of(root), recorder.wrap(gradient if given else Tensor(seed))))
    with np.errstate(all="ignore"):
        found = engine.backward_over(
            reached.order(), started, _flows, recorder.pullback(), hooks=hooks, on_edge=on_edge
        )
    return {
        node: adjoint.tensor if isinstance(adjoint, Recorded) else Tensor(np.array(adjoint, dtype=dtype))
        for node, adjoint in found.items()
        if adjoint is not None
    }


# A rule that does not run on recorded values fails inside NumPy or our protocols (higher.py
# refuses such a derivative too; a script says which node).
CANNOT_TRACE = (Untraceable, TypeError, ValueError, AttributeError)


class Recorded(TracedValue):
    """A script tensor inside a VJP rule of a create_graph backward. NumPy's protocols and
    core.call (traced.Traced's) hand each step of the rule to its Recorder, which records it
    as an op of the script's graph: the rule's result is a tensor with grad_fns."""

    __slots__ = ("tensor",)

    def __init__(self, recorder: Recorder, tensor: Tensor) -> None:
        self.tape, self.index, self.tensor = recorder, -1, tensor

    def __repr__(self) -> str:
        fn = self.tensor.grad_fn
        return f"Recorded({fn.name if fn is not None else 'leaf'}, shape={list(self.shape)})"

    @property
    def recorder(self) -> Recorder:
        return self.tape

    @property
    def value(self) -> np.ndarray:
        return self.tensor.value

    @property
    def shape(self) -> tuple[int, ...]:
        return self.tensor.shape

    @property
    def dtype(self) -> np.dtype:
        return self.tensor.value.dtype

    @property
    def requires_grad(self) -> bool:
        return self.tensor.requires_grad


# Ops whose Python-number operands torch wraps as tensors: their VJPs multiply or divide by
# them with mul.Tensor (MulBackward0), not mul.Scalar (traced.py's WrappedNumber)
_WRAPS_NUMBERS = ("mul", "div")


class Recorder:
    """Records the steps of VJP rules as ops of a script's graph (a create_graph backward).

    Its numbers are the tape's (traced.Tape.apply): each op's forward, in the backward's
    dtype; its names are torch's for the C++ formulas (`grad * 2` is MulBackward1)."""

    def __init__(self, dtype: np.dtype) -> None:
        self.dtype = dtype
        self.holders: dict[int, Tensor] = {}  # id(Fn) -> the tensor standing for its output

    def wrap(self, tensor: Tensor) -> Recorded:
        return Recorded(self, tensor)

    def constant(self, value: Any, name: str | None = None) -> Recorded:
        """A tensor that requires no grad (a rule's zeros or mask), in the backward's dtype."""
        return Recorded(self, Tensor(np.asarray(value, dtype=self.dtype)))

    def _operand(self, x: Any) -> Any:
        if isinstance(x, Recorded):
            return x.tensor
        if isinstance(x, TracedValue):
            raise Untraceable("a rule mixed tensors of two graphs")
        if isinstance(x, (bool, int, float, np.generic)) or (isinstance(x, np.ndarray) and x.ndim == 0):
            return x if isinstance(x, WrappedNumber) else float(x)
        return self.constant(x).tensor

    def apply(self, name: str, *operands: Any, **attrs: Any) -> Recorded:
        """Registry op `name` on these operands, recorded when one of them requires grad."""
        op = REGISTRY[name]
        recorded = [self._operand(o) for o in operands]
        tensors = [type(o) is Tensor for o in recorded]
        args = [o.value if is_tensor else o for o, is_tensor in zip(recorded, tensors)]
        kinds = [TENSOR if is_tensor else NUMBER for is_tensor in tensors]
        shapes = [o.shape if is_tensor else () for o, is_tensor in zip(recorded, tensors)]
        op.shape(shapes, attrs)  # PyTorch's shape errors first
        value = np.asarray(op.forward(*args, **attrs), dtype=self.dtype)
        requires = op.differentiable and any(o.requires_grad for o, t in zip(recorded, tensors) if t)
        if not requires:
            return Recorded(self, Tensor(value))
        # a wrapped number is a tensor to the overload torch picks (mul.Tensor: MulBackward0)
        overload = [TENSOR if isinstance(o, WrappedNumber) else k for o, k in zip(recorded, kinds)]
        grad_fn = scalar_overload(name, overload, op.grad_fn_for(kinds, shapes, attrs))
        snapshots = tuple(o.snapshot() if t else float(o) for o, t in zip(recorded, tensors))
        return Recorded(self, _recorded(value, Fn(op, grad_fn, dict(attrs), snapshots, value)))

    def forward_value(self, operand: Any, op: Any) -> Any:
        """An operand of a forward op as its rule sees it: the leaf itself, a tensor standing
        for an op's output (its grad_fn, so the gradient's graph reaches back into the
        forward graph, as tanh's backward uses tanh's output), a number as torch wraps it."""
        if type(operand) is not Operand:
            return WrappedNumber(operand) if op.name in _WRAPS_NUMBERS else operand
        if operand.grad_fn is not None:
            return Recorded(self, self.holder(operand.grad_fn))
        if operand.requires_grad:
            return Recorded(self, operand.tensor)
        return Recorded(self, Tensor(operand.value))

    def holder(self, fn: Fn) -> Tensor:
        found = self.holders.get(id(fn))
        if found is None:
            found = self.holders[id(fn)] = _holder(fn)
        return found

    def pullback(self) -> engine.Pullback:
        """The chain-rule step at a grad_fn on recorded values (as _fn_pullback on arrays); a
        rule that does not run on them is refused by its node."""

        def pull(fn: Fn, g: Any, positions: list[int]) -> Any:
            autograd.refuse_unimplemented(fn.name, fn.op)
            for unpack in fn.packed.values():  # saved tensors unpacked as the node runs
                unpack()
            args = [self.forward_value(o, fn.op) for o in fn.operands]
            out = Recorded(self, self.holder(fn))
            try:
                for position in positions:  # the rules run as the walk asks for each edge
                    shape = fn.operands[position].value.shape
                    yield autograd.vjp_edge(fn.op, fn.attrs, g, out, args, position, shape, self.dtype)
            except CANNOT_TRACE:
                raise ScriptError(
                    f"create_graph=True through {fn.name} is not supported yet: the gradient of "
                    f"{fn.op.name} does not build a graph in gradcli; differentiate once, or "
                    "rewrite it with other ops"
                ) from None

        return pull


def _recorded(value: np.ndarray, fn: Fn) -> Tensor:
    """A new tensor that `fn` made (it requires grad; its version is the one fn saw)."""
    tensor = Tensor(value, requires_grad=True, grad_fn=fn)
    fn.output = (tensor.version, tensor.version.value)
    tensor.version.recorded = True
    return tensor


def _holder(fn: Fn) -> Tensor:
    """A tensor standing for an op's output where the script's own object is not at hand."""
    if fn.retained is not None:
        return fn.retained
    tensor = Tensor(fn.out, requires_grad=True, grad_fn=fn)
    if fn.output is not None:
        tensor.version = fn.output[0]
    return tensor


def accumulate_graph(tensor: Tensor, new: Tensor, first: str) -> None:
    """AccumulateGrad with grad mode on (create_graph): the first gradient is copied into
    .grad with its history (CopyBackwards; CloneBackward0 for retain_grad), later ones are
    added out of place (AddBackward0), as PyTorch's accumulateGrad does."""
    new_value = np.broadcast_to(new.value, tensor.shape)
    if tensor._grad is None:
        if not new.requires_grad:
            tensor._grad = Tensor(np.array(new_value, dtype=tensor.dtype))
            return
        fn = Fn(REGISTRY["clone"], first, {}, (new.snapshot(),), np.array(new_value, dtype=tensor.dtype))
        tensor._grad = _recorded(fn.out, fn)
        return
    tensor._grad = apply_op("add", [tensor._grad, new], {}, True)


# Ops whose backward reads their result (derivatives.yaml's `result`) rather than, or
# besides, their inputs; and ops that save an input only when another input requires grad.
SAVES_RESULT_ONLY = {
    "exp",
    "exp2",
    "expm1",
    "reciprocal",
    "relu",
    "rsqrt",
    "sigmoid",
    "sqrt",
    "tanh",
    "tan",
    "selu",
    "softmax",
    "log_softmax",
}
SAVES_RESULT_TOO = {
    "logsumexp",
    "norm",
    "prod",
    "amax",
    "amin",
    "max",
    "min",
    "std",
    "max_values",
    "min_values",
}
SAVES_OTHER = {"mul", "matmul"}  # x * w saves w for x's gradient and x only for w's


def _saved_operands(fn: Fn) -> list[Operand]:
    """The tensor operands PyTorch saves for this node's backward (so checks their versions)."""
    operands = list(fn.operands)
    name = fn.op.name
    if not fn.op.saves_tensors or name in SAVES_RESULT_ONLY:
        return []
    if name in SAVES_OTHER or name == "div":
        needed = []
        for i, o in enumerate(operands):
            others = any(isinstance(p, Operand) and p.requires_grad for j, p in enumerate(operands) if j != i)
            if others or (name == "div" and i == 1):
                needed.append(o)
        operands = needed
    elif name == "where":
        operands = operands[:1]
    elif name in ("index", "index1"):
        operands = operands[1:]
    return [o for o in operands if isinstance(o, Operand)]


def _type_name(dtype: str) -> str:
    kind = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int", "bool": "Bool"}.get(
        dtype, "Float"
    )
    return f"torch.{kind}Tensor"


def _short(name: str) -> str:
    """A grad_fn as torch's saved-variable check names it: the C++ node's name less
    "Backward0" (FillBackward2 is Fill2), and the two hand-written nodes by namespace."""
    if name in ("CopySlices", "CopyBackwards"):
        return f"torch::autograd::{name}"
    return re.sub(r"Backward(?:0$|(?=\d+$))", "", name)


def check_saved(fns: list[Fn]) -> None:
    """PyTorch's checks as its engine unpacks saved tensors, root first: freed by an earlier
    backward, or modified in place since the op ran (the version counter moved)."""
    for fn in sorted(fns, key=lambda f: -f.seq):
        if not fn.op.saves_tensors:
            continue
        if fn.freed:
            raise AutogradError(autograd.SECOND_PASS)
        for operand in _saved_operands(fn):
            if operand.version is None or operand.version.value == operand.at:
                continue
            current = operand.tensor.grad_fn
            which = f", which is output 0 of {_short(current.name)}," if current is not None else ""
            raise AutogradError(
                _modified(operand.value, operand.tensor.dtype, which, operand.version.value, operand.at)
            )
        saves_result = fn.op.name in SAVES_RESULT_ONLY or fn.op.name in SAVES_RESULT_TOO
        if saves_result and fn.output is not None and fn.output[0].value != fn.output[1]:
            which = f", which is output 0 of {_short(fn.name)},"
            raise AutogradError(_modified(fn.out, str(fn.out.dtype), which, fn.output[0].value, fn.output[1]))


def _modified(value: np.ndarray, dtype: str, which: str, now: int, then: int) -> str:
    what = f"{_type_name(dtype)} [{', '.join(str(n) for n in np.shape(value))}]"
    return MODIFIED.format(what=what, which=which, now=now, then=then)


@dataclass
class Traced:
    """What --trace and --format json show of one backward call (filled by run_backward)."""

    names: dict[int, str]
    laid: _Laid | None = None
    adjoints: list | None = None
    edges: dict[tuple[int, int], np.ndarray] | None = None  # what each edge carried
    seed: np.ndarray | None = None
    dtype: str = "float32"
    before: dict[int, np.ndarray | None] = field(default_factory=dict)
    inputs: list[int] = field(default_factory=list)  # autograd.grad's inputs, as node indices


def _grad_copy(tensor: Tensor) -> np.ndarray | None:
    return None if tensor._grad is None else tensor._grad.value.copy()


def accumulate(tensor: Tensor, adjoint: np.ndarray) -> None:
    """AccumulateGrad: the first pass stores a new tensor, later passes add in place."""
    adjoint = np.broadcast_to(adjoint, tensor.shape)
    grad = tensor._grad
    if grad is None:
        tensor._grad = Tensor(np.array(adjoint, dtype=tensor.dtype))
        return
    target = grad.value
    if not grad.version.recorded and grad.dtype in FLOAT_DTYPES and target.dtype == adjoint.dtype:
        np.add(target, adjoint, out=target)  # in place, as torch's AccumulateGrad: no new array a step
        grad.version.value += 1
    else:  # an op recorded .grad's values, or a cast: write() copies first / casts as torch
        grad.assign(target + adjoint)


def check_shape(shape: Any) -> None:
    if any(n < 0 for n in shape):
        raise ShapeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
