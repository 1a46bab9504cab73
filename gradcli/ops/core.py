"""The op record and what records share: shapes, broadcasting, reductions' dims, helpers.

Family modules (arithmetic, elementwise, reductions, layout, ...) hold the records; the
package's __init__ assembles them into the one registry.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from ..errors import IndexOutOfRange, ShapeError
from .summation import torch_mean, torch_sum

Shape = tuple[int, ...]
# An operand is either a tensor node or a plain Python number folded from literals.
TENSOR, NUMBER = "tensor", "number"


@dataclass(frozen=True)
class Param:
    """A non-tensor argument as PyTorch names it, its default, and what a program may write there.

    kind: "dim" (an int or None), "dims" (also a tuple of ints), "bool", "int", "number" (an int
    or float literal; None too when that is the default) or "choice" (one of `choices`, a
    string such as reduction='sum').
    """

    name: str
    default: Any
    kind: str
    choices: tuple[str, ...] = ()
    # Only by keyword: where torch's positional slot is another argument (F.mse_loss's third
    # is the legacy size_average, cross_entropy's is weight), a position must not bind here.
    keyword_only: bool = False
    # torch's words for a value outside `choices` ({value} is the value given), if it has its own
    refusal: str = ""


DIM = Param("dim", None, "dim")
# sum and mean: one dim, or several as a tuple or list (x.sum(dim=(1, 2)): one SumBackward1)
DIM_OR_DIMS = Param("dim", None, "dims")
# kind "ints" (a shape or dims: `x.reshape(2, 3)`, `x.view(-1)`, `x.permute((1, 0))`) takes
# an int or a tuple/list of ints; as an op's last param, also the remaining positional ints.
# With `choices`, also one of those strings (F.conv2d's padding='same').
KEEPDIM = Param("keepdim", False, "bool")


# A dim attr whose None means every dim of a sample (amax(x), var(x)) in a Batching rule.
ALL_DIMS = "every sample dim"


@dataclass(frozen=True)
class Batching:
    """How the batched domain (batched.py) runs an op on B stacked samples at once, for an op
    whose forward reads its operand as one array (indexing, shape ops, reductions, kernels).

    `rule` names a rule of batched.py. "along": the forward runs once on the stacked arrays,
    with the attrs in `dims` (name, default; ALL_DIMS: None means every sample dim) moved past
    the batch axis and those in `shapes` given the batch size in front. "elementwise": operands
    line up from the right. The others are rules of their own: "relabel" (reshape and views),
    "expand", "repeat", "permute", "pad", "copy", "index", "index_put", "over_samples" (a
    reduction of every element), "argpick", "bmm", "nll_loss", "nll_loss_backward".
    An elementwise op needs none; any other op without one runs point by point."""

    rule: str
    dims: tuple[tuple[str, Any], ...] = ()
    shapes: tuple[str, ...] = ()
    reduce: Any = None  # "over_samples": the NumPy reduction of each sample (np.amax, np.prod)


@dataclass(frozen=True)
class Spelling:
    """A name as written, the op it means, and what the name itself fixes."""

    op: str
    numbers: tuple[float, ...] = ()  # number operands appended: square(x) is pow(x, 2)
    renames: tuple[tuple[str, str], ...] = ()  # NumPy's axis= is PyTorch's dim=


@dataclass(frozen=True)
class Composite:
    """A call PyTorch records as several nodes, written as a composition of registry ops.

    `build(apply, *operands, **attrs)` returns the expression; `apply(op_name, *operands,
    **attrs)` makes one node (a float operand is a number). F.cross_entropy(x, y) is
    apply("nll_loss", apply("log_softmax", x, dim=1), y), as torch records it.
    """

    name: str
    arity: int  # tensor operands
    params: tuple[Param, ...]
    build: Callable[..., Any]
    torch: str
    derivative: str = ""  # for `gradcli ops`: what it is made of
    # What torch records depends on the operands' shapes (cross_entropy's target: class
    # indices or probabilities; linear's input rank): `build` also gets `shapes=` (None for
    # an operand not given) and `dtypes=` (ops.dtypes' names, None if unknown), and the
    # graph expands the call once they are known.
    shaped: bool = False
    optional: int = 0  # trailing tensor operands that may be left out or None (linear's bias)


@dataclass(frozen=True)
class Op:
    """One primitive: forward, VJP, sympy form and PyTorch name, side by side."""

    name: str  # as written in a program: "sin", "matmul"; "add" for "+"
    syntax: str  # how a user writes it
    forward: Callable[..., Any]  # NumPy: (*operands, **attrs) -> array
    vjp: tuple[Callable[..., Any], ...]  # per operand: (g, out, *operands, **attrs) -> grad
    sympy: Callable[..., Any]  # (sp, *operand_forms, **attrs) -> sympy expression
    grad_fn: str  # PyTorch's grad_fn name in the common case
    saves_tensors: bool = True  # PyTorch frees these at backward: 2nd pass needs retain_graph
    elementwise: bool = True  # result shape = broadcast of operand shapes
    function: bool = True  # callable as name(...)
    method: bool = True  # callable as x.name(...)
    reduction: bool = False  # takes dim= and keepdim=
    # Non-tensor arguments after the operands, in PyTorch's positional order, with defaults.
    params: tuple[Param, ...] = ()
    differentiable: bool = True  # False: the result never requires grad (comparisons, detach)
    gives_mask: bool = False  # a bool tensor (held as 0/1): comparisons
    refuses_masks: bool = False  # a mask operand would be misread (as integer indices)
    torch: str = ""  # PyTorch's spelling, for `gradcli ops` and the tests' oracle: "torch.sin"
    # How the node table writes a use, when `syntax` cannot say it: (operand texts, attrs) -> "x[0, 1:3]"
    written: Callable[[list[str], dict], str] | None = None
    domain: str = ""  # where the op is defined (real inputs)
    infer_shape: Callable[..., Shape] | None = None  # non-elementwise ops
    pick_grad_fn: Callable[[Sequence[str], Sequence[Shape], dict], str] | None = None
    aliases: tuple[str, ...] = field(default=())
    # A size (x.shape[0], len(x)): a Python int in torch, folded from the operand's shape
    # when the graph is built, never a node. (shape, attrs) -> int.
    size_of: Callable[[Shape, dict], int] | None = None
    # Multiply-adds (or window steps) when they outnumber the op's largest tensor, for a
    # script's MAX_SCRIPT_WORK: (operand shapes, result shape, attrs) -> int.
    work: Callable[[list[Shape], Shape, dict], int] | None = None
    # A constructor (torch.tensor, torch.arange): no operands; torch's dtype of the new
    # tensor from its arguments (attrs) -> "float", "int64" or "bool".
    new_dtype: Callable[[dict], str] | None = None
    # Arguments torch reads from an operand's values (F.one_hot's num_classes when not given):
    # (attrs, value_of) -> attrs, where value_of(k) is operand k's value; the graph calls it
    # once the inputs' values are known, before the shape (so not under --batch).
    from_values: Callable[[dict, Callable[[int], Any]], dict] | None = None
    # How the result views its operand: "view" must be a view (else torch's view error);
    # "reshape" is a view where the strides allow (ReshapeAliasBackward0 if the operand is
    # not contiguous), else a copy: CloneBackward0 then UnsafeViewBackward0. See strides.py.
    viewing: str = ""
    # Elementwise ops only: the sympy form as sympy prints it, with {0}, {1} for the operands.
    # Big programs write their per-node forms from it without importing sympy; a test checks
    # it against what sympy prints. (No op states a derivative but its VJP: every symbolic
    # and text reading of a gradient runs the VJP on a tape of formulas, traced.py.)
    text: str | None = None
    # A call that returns torch.return_types (values, indices): the records of its two parts
    # (torch.max(x, dim) is max_values and argmax), and whether it does so without a dim too.
    pair: tuple[str, str] = ()
    always_paired: bool = False
    batching: Batching | None = None  # how --batch and Jacobian rows run it on stacked samples
    # Python's operator for it, where a formula or an error message writes one: ">" for gt
    symbol: str = ""
    # torch.max(a, b) of two tensors is another op: its name ("maximum" for max)
    with_other: str = ""

    @property
    def arity(self) -> int:
        return len(self.vjp)

    def grad_fn_for(self, kinds: Sequence[str], shapes: Sequence[Shape], attrs: dict) -> str:
        """PyTorch's grad_fn name for this use (it can depend on operand kinds and shapes)."""
        return self.pick_grad_fn(kinds, shapes, attrs) if self.pick_grad_fn else self.grad_fn

    def shape(self, shapes: Sequence[Shape], attrs: dict) -> Shape:
        """Result shape, or ShapeError in PyTorch's words, before anything is computed."""
        if self.infer_shape is not None:
            return self.infer_shape(*shapes, **attrs)
        return broadcast_shapes(*shapes)


def call(name: str, *operands: Any, **attrs: Any) -> Any:
    """Registry op `name` inside a rule: its forward on arrays, a recorded node on traced ones.

    This is how a VJP names a fused backward kernel (tanh_backward) or any op NumPy has no
    spelling for, so the same rule serves the numeric pass and create_graph.
    """
    for operand in operands:
        hook = getattr(operand, "apply_op", None)
        if hook is not None:
            return hook(name, *operands, **attrs)
    from . import REGISTRY  # the registry is assembled after its families

    return REGISTRY[name].forward(*operands, **attrs)


def anywhere(mask: Any) -> bool:
    """Whether a mask holds for any element, where PyTorch's backward asks it too (prod's
    `(input == 0).nonzero()`): a traced value answers from its recorded numbers, a batched one
    for all its points at once, so a rule may take one path for the whole batch when the
    answer is no (and read its operand as an array, which runs point by point, when yes)."""
    hook = getattr(mask, "anywhere", None)
    return bool(hook()) if hook is not None else bool(np.any(mask))


# ---------------------------------------------------------------- shape helpers


def broadcast_shapes(*shapes: Shape) -> Shape:
    """NumPy/PyTorch broadcasting, failing with PyTorch's message."""
    first = shapes[0]
    if all(shape == first for shape in shapes):  # the common case: nothing to broadcast
        return tuple(first)
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    result = []
    for dim in reversed(range(ndim)):  # torch's infer_size checks the last dim first
        sizes = {p[dim] for p in padded} - {1}
        if len(sizes) > 1:
            a, b = padded[0][dim], padded[1][dim]
            raise ShapeError(
                f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                f"at non-singleton dimension {dim}"
            )
        result.append(sizes.pop() if sizes else 1)
    return tuple(reversed(result))


def unbroadcast(grad: np.ndarray, shape: Shape) -> np.ndarray:
    """The adjoint of broadcasting is a sum over the broadcast dimensions."""
    if hasattr(grad, "sum_to"):  # a traced or batched value: its interpretation's own sum_to
        return grad.sum_to(tuple(shape))
    grad = np.asarray(grad)
    if grad.shape == tuple(shape):
        return grad
    # at::sum_to: one keepdim sum over the leading dims and the broadcast ones, then a view
    extra = grad.ndim - len(shape)
    dims = tuple(range(extra)) + tuple(
        extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1
    )
    if dims:
        grad = torch_sum(grad, dims, keepdims=True)
    grad = grad.reshape(grad.shape[extra:]) if extra > 0 else grad
    return np.broadcast_to(grad, shape) if grad.shape != tuple(shape) else grad


def _sum_to_traced(grad: Any, shape: Shape) -> Any:
    """at::sum_to as PyTorch records it: sum() to a scalar (SumBackward0), else a keepdim sum
    over the broadcast dims (SumBackward1), then a view when leading dims go (ViewBackward0)."""
    if tuple(grad.shape) == shape:
        return grad
    if shape == ():
        return call("sum", grad)
    extra = len(grad.shape) - len(shape)
    kept = tuple(grad.shape[:extra]) + shape
    size = (1,) * extra + tuple(n if n == 1 else kept[extra + i] for i, n in enumerate(shape))
    summed = call("sum_to", grad, size=size)
    return call("view", summed, size=shape) if extra else summed


def broadcast_dims(operand: Shape, result: Shape) -> tuple[int, ...]:
    """Dimensions of `result` that broadcasting added or stretched for `operand`."""
    if operand == result:
        return ()
    extra = len(result) - len(operand)
    stretched = [extra + i for i, n in enumerate(operand) if n == 1 and result[extra + i] != 1]
    return tuple(range(extra)) + tuple(stretched)


def _normalise_dim(dim: int | None, ndim: int) -> int | None:
    if dim is None:
        return None
    low, high = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not low <= dim <= high:
        raise IndexOutOfRange(  # torch raises IndexError
            f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})"
        )
    return dim % max(ndim, 1)


def _axes(dim: int | tuple[int, ...] | None, ndim: int) -> int | tuple[int, ...] | None:
    """A reduction's dim, normalised: an int, None (every dim), or a sorted tuple of ints.

    Programs give one dim; rules written in registry ops may pass several, as PyTorch's C++
    sum(dims) does (one SumBackward1 node for all of them). An empty list of dims is every
    dim, as torch reads `x.sum(dim=())`."""
    if dim == ():
        return None
    if not isinstance(dim, tuple):
        return _normalise_dim(dim, ndim)
    dims = [_normalise_dim(d, ndim) for d in dim]
    for position, d in enumerate(dims):
        if d in dims[:position]:
            raise ShapeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(sorted(dims))


def _reduce_shape(shape: Shape, dim: int | tuple[int, ...] | None = None, keepdim: bool = False) -> Shape:
    d = _axes(dim, len(shape))
    if not shape:
        return ()
    if d is None:
        return (1,) * len(shape) if keepdim else ()
    dims = d if isinstance(d, tuple) else (d,)
    return tuple(1 if i in dims else n for i, n in enumerate(shape) if keepdim or i not in dims)


def _reduced_count(shape: Shape, dim: int | tuple[int, ...] | None) -> int:
    d = _axes(dim, len(shape))
    if d is None or not shape:
        return math.prod(shape) if d is None else 1
    return math.prod(shape[i] for i in d) if isinstance(d, tuple) else shape[d]


def _matmul_shape(a: Shape, b: Shape) -> Shape:
    if len(a) == 0 or len(b) == 0:
        raise ShapeError(
            f"both arguments to matmul need to be at least 1D, but they are {len(a)}D and {len(b)}D"
        )
    if len(a) > 2 or len(b) > 2:  # batched products are rewritten into bmm or mm (products.py)
        raise ShapeError(
            f"matmul of batched operands is recorded as torch records it, not as one node: {list(a)} @ {list(b)}"
        )
    if len(a) == 1 and len(b) == 1:
        if a[0] != b[0]:
            raise ShapeError(
                f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have the "
                f"same number of elements, but got {a[0]} and {b[0]} elements respectively"
            )
        return ()
    if len(a) == 2 and len(b) == 1:
        if a[1] != b[0]:
            raise ShapeError(f"size mismatch, got input ({a[0]}), mat ({a[0]}x{a[1]}), vec ({b[0]})")
        return (a[0],)
    rows_a = (1, a[0]) if len(a) == 1 else a
    if rows_a[1] != b[0]:
        raise ShapeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows_a[0]}x{rows_a[1]} and {b[0]}x{b[1]})"
        )
    return (b[1],) if len(a) == 1 else (a[0], b[1])


def _transpose_shape(a: Shape) -> Shape:
    if len(a) > 2:
        raise ShapeError(f"t() expects a tensor with <= 2 dimensions, but self is {len(a)}D")
    return tuple(reversed(a))


# ---------------------------------------------------------------- numeric helpers


def _power(a, b):
    """a**b; a number exponent of 2 or 3 is multiplied out, as PyTorch's pow kernel does."""
    if isinstance(b, float) and isinstance(a, np.ndarray):
        if b == 2:
            return a * a
        if b == 3:
            return a * a * a
    return np.power(a, b)


def _pow_grad_base(g, out, a, b):
    # PyTorch pow_backward_self: exponent 0 gives grad 0 even where a**-1 is inf.
    if isinstance(b, float):  # a number exponent: no mask needed unless it is 0
        return np.zeros_like(g * a) if b == 0 else g * (b * _power(a, b - 1))
    return np.where(np.equal(b, 0), 0.0, g * (b * np.power(a, b - 1)))


def _sgn(a):
    """torch.sgn: -1, 0 or 1, and 0 for nan (NumPy's sign gives nan)."""
    if getattr(a, "tape", None) is not None:  # create_graph: PyTorch's sgn node (SgnBackward0)
        return call("sgn", a)
    return np.where(np.isnan(a), 0.0, np.sign(a))  # arrays and batched arrays


def wide(function: Callable[[Any], Any], a: Any) -> Any:
    """function(a), computed in double for a float32 array and rounded once to float32.

    torch's vectorized float32 exp, log1p, tanh ... land on that result almost always, where
    NumPy's float32 loops differ from it in up to 40% of inputs; a formula that rounds between
    its steps in torch (sigmoid's 1 / (1 + exp(-x))) rounds here between the same steps."""
    if isinstance(a, (np.ndarray, np.generic)) and a.dtype == np.float32:
        return function(a.astype(np.float64)).astype(np.float32)
    return function(a)


def _softplus(a):
    # PyTorch's softplus(beta=1, threshold=20): linear above the threshold.
    return np.where(a > 20, a, wide(np.log1p, wide(np.exp, a)))


def _softplus_grad(g, out, a):
    z = np.exp(a)
    return np.where(a > 20, g, g * z / (z + 1))


def _sigmoid(a):
    return 1 / (1 + wide(np.exp, -a))  # torch's kernel: exp, add, reciprocal, each rounded


def _unsqueeze_multiple(g, dims: Sequence[int]):
    """PyTorch's unsqueeze_multiple: one unsqueeze per reduced dim, lowest first."""
    for d in sorted(dims):
        g = np.expand_dims(g, d)
    return g


def _expand_reduced(g, a, dim, keepdim):
    """Undo a reduction's shape change so `g` broadcasts against the operand (as PyTorch:
    unsqueeze the reduced dims, then expand)."""
    shape = tuple(np.shape(a))
    d = _axes(dim, len(shape)) if shape else None
    if d is not None and not keepdim:
        g = _unsqueeze_multiple(g, d if isinstance(d, tuple) else (d,))
    return np.broadcast_to(g, shape)


def _dim_overload(attrs: dict) -> bool:
    """PyTorch's x.sum()/x.mean() is overload 0; any dim= or keepdim=True is overload 1."""
    return attrs.get("dim") is not None or bool(attrs.get("keepdim"))


def _sum(a, dim=None, keepdim=False):
    if np.ndim(a) == 0:
        return np.copy(a)
    return torch_sum(a, axis=_axes(dim, np.ndim(a)), keepdims=keepdim)


def _mean(a, dim=None, keepdim=False):
    if np.ndim(a) == 0:
        return np.copy(a)
    return torch_mean(a, axis=_axes(dim, np.ndim(a)), keepdims=keepdim)


def _mean_grad(g, out, a, dim=None, keepdim=False):
    count = _reduced_count(np.shape(a), dim)
    return _expand_reduced(g, a, dim, keepdim) / count


def _matmul_grad_a(g, out, a, b):
    if np.ndim(a) == 1 and np.ndim(b) == 1:
        return g * b
    if np.ndim(a) == 2 and np.ndim(b) == 1:
        return np.outer(g, b)
    return np.matmul(g, b.T)


def _matmul_grad_b(g, out, a, b):
    if np.ndim(a) == 1 and np.ndim(b) == 1:
        return g * a
    if np.ndim(a) == 1 and np.ndim(b) == 2:
        return np.outer(a, g)
    return np.matmul(a.T, g)


def _matmul_grad_fn(kinds, shapes, attrs) -> str:
    a, b = len(shapes[0]), len(shapes[1])
    return {(2, 2): "MmBackward0", (2, 1): "MvBackward0", (1, 2): "SqueezeBackward4"}.get(
        (a, b), "DotBackward0"
    )


# ---------------------------------------------------------------- symbolic helpers


def _fn(sp, name: str):
    """An opaque sympy function for tensor-level ops (elementwise notation elsewhere); the
    comparisons, where() and masked_fill() evaluate once their operands are numbers
    (`where(eq(2, 0), 0, g)` in pow's rule is g), also after a substitution."""
    return _folding(name) if name in _FOLDS else sp.Function(name)


_FOLDS = {
    "gt": operator.gt,
    "lt": operator.lt,
    "ge": operator.ge,
    "le": operator.le,
    "eq": operator.eq,
    "ne": operator.ne,
    "where": None,
    "masked_fill": None,
}


@cache
def _folding(name: str) -> Any:
    import sympy as sp

    def known(arg: Any) -> bool:
        return bool(arg.is_number and arg.is_comparable)

    def evaluate(cls: Any, *args: Any) -> Any:
        if name == "where":
            condition, a, b = args
            return (a if condition != 0 else b) if known(condition) else None
        if name == "masked_fill":
            a, mask, value = args
            return (value if mask != 0 else a) if known(mask) else None
        if len(args) == 2 and all(known(arg) for arg in args):
            return sp.Integer(int(_FOLDS[name](float(args[0]), float(args[1]))))
        return None

    return type(name, (sp.Function,), {"eval": classmethod(evaluate)})


def _sym_reduce(name):
    def form(sp, a, shapes=((),), dim=None, keepdim=False):
        if not shapes[0]:
            return a
        return _fn(sp, name)(a) if dim is None else _fn(sp, name)(a, dim)

    return form


def _sym_transpose(sp, a, shapes=((),)):
    return _fn(sp, "t")(a) if len(shapes[0]) == 2 else a


def _sym_matmul(sp, a, b, shapes=((), ())):
    return _fn(sp, "matmul")(a, b)


# ---------------------------------------------------------------- one-operand elementwise records


def _unary(
    name: str,
    forward: Callable,
    vjp: Callable,
    sympy: Callable,
    grad_fn: str,
    domain: str = "all reals",
    *,
    text: str,
    **extra: Any,
) -> Op:
    extra.setdefault("torch", f"torch.{name}")
    return Op(
        name=name,
        syntax=f"{name}(x) or x.{name}()",
        forward=forward,
        vjp=(vjp,),
        sympy=sympy,
        grad_fn=grad_fn,
        domain=domain,
        text=text,
        **extra,
    )
