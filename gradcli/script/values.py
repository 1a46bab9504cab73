"""The values a `run` script holds besides numbers, strings and lists: torch's objects as the
interpreter models them (functions, modules, dtypes, sizes, devices, grad_fn nodes, hook handles),
and `show`, the one place a tensor becomes text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ops.dtypes import NOT_DIFFERENTIABLE
from . import runtime
from .runtime import ScriptError, Tensor
from .tensor_repr import dtype_repr, size_repr, tensor_repr

UNNAMED_BY_VMAP = (
    "a vmap result that requires grad: torch's batched graph ends in nodes gradcli does not build, so "
    "its grad_fn is not shown (its values and gradients are torch's; print it .detach()ed)"
)


def show(t: Tensor) -> str:
    """The one place a tensor becomes text: PyTorch's repr."""
    if t.stale_view and not t.view_of.steps:  # PyTorch regenerates a view's grad_fn
        t.refresh_view()
    name = t.grad_fn.name if t.grad_fn is not None else None
    if t.stale_view:
        name = "AsStridedBackward0"
    if t.__dict__.get("vmapped") and t.grad_fn is not None:
        raise ScriptError(UNNAMED_BY_VMAP)
    tangent = None
    if t.tangent is not None and not isinstance(t.tangent, Tensor):  # forward_ad.GradTangent
        raise ScriptError(
            f"the tangent of {t.tangent.where} depends on tensors that require grad (torch gives it a "
            "grad_fn); forward-over-reverse is not supported by gradcli run"
        )
    if t.tangent is not None:  # f"{tangent}": a 0-dim tensor formats as its Python number
        tangent = repr(t.tangent.value.item()) if t.tangent.value.ndim == 0 else show(t.tangent)
    text = tensor_repr(
        t.value, dtype=t.dtype, requires_grad=t.requires_grad, grad_fn=name, is_leaf=t.is_leaf, tangent=tangent
    )
    return "Parameter containing:\n" + text if is_parameter(t) else text


def is_parameter(t: Tensor) -> bool:
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


# torch.Size is a C type named "torch.Size": Python's own messages ("'torch.Size' object has no
# attribute ...") and type(x.shape) say so
Size.__name__, Size.__qualname__, Size.__module__ = "torch.Size", "Size", "torch"


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


@dataclass(frozen=True)
class NoGrad:
    enabled: bool = False  # torch.no_grad() -> False, torch.enable_grad() -> True
    before: bool | None = None  # set_grad_enabled(b) switched at the call: the mode to restore
    inference: bool = False  # torch.inference_mode(): tensors made inside keep no version counter


@dataclass(eq=False)
class AccumulateGrad:
    """The node that accumulates a leaf's gradient into .grad (PyTorch's next_functions show it)."""

    variable: Tensor


# ops whose integer or bool tensor operands are indices, targets or masks (no next_functions entry)
_INDEX_TAKING = frozenset({"gather", "index", "nll_loss", "nll_loss_weighted", "embedding", "masked_fill", "masked_select"})


def next_functions(fn: Any) -> tuple:
    """PyTorch's grad_fn.next_functions: one (node, 0) per differentiable tensor input.

    A number operand of mul/add/sub/div is a wrapped tensor in PyTorch (an entry of its own,
    None, after the tensor: 2 * x is mul(x, 2)); rsub, rdiv and pow take it as a Scalar (no
    entry); where's condition is no input."""
    if isinstance(fn, AccumulateGrad):
        return ()
    operands = list(fn.operands)
    name = fn.op.name
    # torch lists no edge for an argument derivatives.yaml calls non-differentiable: an index
    # or class target (integer), a mask (bool), a loss's constant weight
    unlisted = {position for position, _, _ in NOT_DIFFERENTIABLE.get(name, ())}
    if name.rstrip("0123456789") in _INDEX_TAKING:
        unlisted |= {
            k
            for k, o in enumerate(operands)
            if isinstance(o, runtime.Operand) and not str(o.tensor.dtype).startswith("float")
        }
    operands = [o for k, o in enumerate(operands) if k not in unlisted]
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


@dataclass(eq=False)
class HookHandle:
    """What register_hook returns; .remove() takes the hook off."""

    owner: dict
    key: int

    def remove(self) -> None:
        self.owner.pop(self.key, None)


class Device:
    """torch.device: gradcli runs on the CPU; a cuda or mps device can be named, not used."""

    def __init__(self, kind: str = "cpu", index: int | None = None) -> None:
        self.kind = kind
        self.index = index  # torch.device("cuda:1").index; None when not named

    def __repr__(self) -> str:
        return f"device(type='{self.kind}'" + ("" if self.index is None else f", index={self.index}") + ")"

    def __str__(self) -> str:  # print(x.device) and f"{x.device}" show "cpu" ("cuda:1" with an index)
        return self.kind if self.index is None else f"{self.kind}:{self.index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and (other.kind, other.index) == (self.kind, self.index)

    __hash__ = None  # type: ignore[assignment]


NO_CUDA = "Torch not compiled with CUDA enabled"


class Fixed:
    """A torch function whose answer is fixed here: torch.cuda.is_available() is False."""

    def __init__(self, name: str, value: Any) -> None:
        self.name, self.value = name, value


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


# What gradcli's own code raises when a torch call is given an argument of a kind it does not
# take; the call ends as torch's argument parser would end it, with a TypeError.
ARGUMENT_SLIPS = (
    TypeError,
    ValueError,
    IndexError,
    KeyError,
    AttributeError,
    OverflowError,
    ZeroDivisionError,
)
