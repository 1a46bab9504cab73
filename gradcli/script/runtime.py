"""Define-by-run tensors for `gradcli run`: each op result is a node of a graph that grows.

A Tensor holds its value (a NumPy array in a shared box, so `.data`, `.detach()` and
in-place updates alias as in PyTorch) and its grad_fn, an Fn record of the registry op
that made it. Fn records its operands as they were when it ran (value, grad_fn,
requires_grad), so a later in-place update of a leaf cannot change a recorded graph.

backward() does not carry derivative rules of its own: it collects the Fn records
reachable from the output, lays them out as a `graph.Graph` (leaves first, then ops in
creation order, which is topological) and hands that to `autograd.seed_for` and
`autograd.backward`, the same code `gradcli grad` runs, so both commands share every
VJP and every PyTorch error text.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import autograd
from ..errors import AutogradError, GradcliError, ShapeError
from ..graph import CONST, LEAF, OP, Graph, Literal, Node
from ..ops import NUMBER, REGISTRY, TENSOR

FLOAT_DTYPES = ("float32", "float64")
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

    def next_functions(self) -> tuple:
        return tuple(o for o in self.operands if isinstance(o, Operand))


@dataclass(frozen=True, eq=False)
class Operand:
    tensor: Tensor
    value: np.ndarray
    grad_fn: Fn | None
    requires_grad: bool


class Box:
    """Storage shared by a tensor and its `.data` / `.detach()` aliases."""

    __slots__ = ("value",)

    def __init__(self, value: np.ndarray) -> None:
        self.value = value


class Tensor:
    """A tensor of a script: value, dtype, requires_grad, grad, grad_fn."""

    def __init__(
        self,
        value: np.ndarray | Box,
        *,
        dtype: str | None = None,
        requires_grad: bool = False,
        grad_fn: Fn | None = None,
    ) -> None:
        self.box = value if isinstance(value, Box) else Box(np.asarray(value))
        self.dtype = dtype or str(self.box.value.dtype)
        if self.dtype != str(self.box.value.dtype):
            self.box.value = self.box.value.astype(self.dtype)
        self.requires_grad = requires_grad
        self.grad_fn = grad_fn
        self._grad: Tensor | None = None
        self.retains_grad = False

    @property
    def value(self) -> np.ndarray:
        return self.box.value

    @property
    def shape(self) -> tuple[int, ...]:
        return self.box.value.shape

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def snapshot(self) -> Operand:
        return Operand(self, self.box.value, self.grad_fn, self.requires_grad)

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
        if flag and self.dtype not in FLOAT_DTYPES:
            raise ScriptRuntimeError(NOT_FLOAT)
        self.requires_grad = bool(flag)

    def assign(self, value: np.ndarray) -> None:
        """In-place: every alias of this storage sees the new value (same dtype, same shape)."""
        self.box.value = np.asarray(value).astype(self.dtype, copy=False)


def result_dtype(op: Any, tensors: list[Tensor], numbers: list[Any]) -> str:
    if op.gives_mask:
        return "bool"
    kinds = {t.dtype for t in tensors}
    if "float64" in kinds:
        return "float64"
    if "float32" in kinds:
        return "float32"
    integral = all(isinstance(n, (int, bool)) for n in numbers)
    if kinds <= {"int64", "bool"} and integral and op.name in _INTEGER_OPS:
        return "int64"
    return "float32"


# Ops that keep integer tensors integers (torch.arange(5) * 2 is int64; / and sin are not).
_INTEGER_OPS = {
    "add",
    "sub",
    "mul",
    "neg",
    "abs",
    "sum",
    "max",
    "min",
    "amax",
    "amin",
    "clone",
    "detach",
    "reshape",
    "view",
    "T",
    "t",
    "transpose",
    "permute",
    "flatten",
    "squeeze",
    "unsqueeze",
    "select",
    "slice",
    "index",
    "index1",
    "expand",
    "repeat",
    "cumsum",
    "prod",
    "maximum",
    "minimum",
    "zeros_like",
    "ones_like",
    "full_like",
    "where",
    "pow",
}


def apply_op(name: str, operands: list[Any], attrs: dict, grad_enabled: bool) -> Tensor | float:
    """Run one registry op on tensors and numbers; record it when it needs a gradient."""
    op = REGISTRY[name]
    tensors = [o for o in operands if isinstance(o, Tensor)]
    numbers = [o for o in operands if not isinstance(o, Tensor)]
    shapes = [o.shape if isinstance(o, Tensor) else () for o in operands]
    shape = op.shape(shapes, attrs)  # ShapeError in PyTorch's words, before computing
    dtype = result_dtype(op, tensors, numbers)
    compute = "float64" if dtype == "float64" else "float32"
    args = []
    for o in operands:
        if isinstance(o, Tensor):
            v = o.value
            args.append(v.astype(compute) if v.dtype.kind in "biu" and dtype not in ("int64", "bool") else v)
        else:
            args.append(float(o) if dtype not in ("int64",) else o)
    with np.errstate(all="ignore"):
        out = np.asarray(op.forward(*args, **attrs))
    if dtype == "bool":
        out = out.astype(bool)
    out = out.astype(dtype if dtype != "float32" or out.dtype != np.float32 else out.dtype, copy=False)
    if out.shape != tuple(shape):
        out = np.broadcast_to(out, shape).copy()
    requires = grad_enabled and op.differentiable and any(t.requires_grad for t in tensors)
    if not requires:
        return Tensor(out, dtype=dtype)
    kinds = [TENSOR if isinstance(o, Tensor) else NUMBER for o in operands]
    recorded = tuple(o.snapshot() if isinstance(o, Tensor) else float(o) for o in operands)
    fn = Fn(op, op.grad_fn_for(kinds, shapes, attrs), dict(attrs), recorded, out)
    return Tensor(out, dtype=dtype, requires_grad=True, grad_fn=fn)


# ---------------------------------------------------------------- backward


@dataclass
class _Laid:
    graph: Graph
    values: list[np.ndarray]
    leaves: dict[int, Tensor]  # node index -> leaf tensor that requires grad
    fn_index: dict[int, int]  # id(Fn) -> node index
    fns: list[Fn]


def _lay_out(root: Tensor) -> _Laid:
    """The part of the growing graph that backward from `root` reaches, as a graph.Graph."""
    fns: dict[int, Fn] = {}
    leaf_tensors: dict[int, Operand] = {}
    stack = [root.grad_fn] if root.grad_fn is not None else []
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
    if root.grad_fn is None:  # x.backward() on a leaf
        leaves[0] = root
        nodes.append(Node(0, "t0", LEAF, root.shape, root.requires_grad))
        values.append(root.value)
        return _Laid(Graph(None, tuple(nodes), 0), values, leaves, {}, [])
    ordered = sorted(fns.values(), key=lambda f: f.seq)
    fn_index: dict[int, int] = {}
    for fn in ordered:  # leaves and constants first: they exist before any op uses them
        for operand in fn.next_functions():
            if operand.grad_fn is not None:
                continue
            key = id(operand.tensor) if operand.requires_grad else id(operand)
            if key in leaf_index:
                continue
            index = len(nodes)
            leaf_index[key] = index
            kind = LEAF if operand.requires_grad else CONST
            nodes.append(Node(index, f"t{index}", kind, operand.value.shape, operand.requires_grad))
            values.append(operand.value)
            if operand.requires_grad:
                leaves[index] = operand.tensor
            leaf_tensors[key] = operand
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
        shape = _output_shape(fn, nodes, operands)
        nodes.append(Node(index, f"t{index}", OP, shape, True, fn.op, tuple(operands), fn.attrs, fn.name))
        values.append(fn.out)
    return _Laid(Graph(None, tuple(nodes), fn_index[id(root.grad_fn)]), values, leaves, fn_index, ordered)


def _output_shape(fn: Fn, nodes: list[Node], operands: list) -> tuple[int, ...]:
    shapes = [nodes[o].shape if isinstance(o, int) else () for o in operands]
    return fn.op.shape(shapes, fn.attrs)


def run_backward(
    root: Tensor,
    gradient: Tensor | None,
    retain_graph: bool,
    inputs: list[Tensor] | None = None,
) -> list[np.ndarray | None] | None:
    """One backward pass from `root`: accumulate leaves' .grad (inputs=None) or return the
    gradients of `inputs` (torch.autograd.grad). PyTorch's checks, in PyTorch's order."""
    dtype = np.dtype(root.dtype if root.dtype in FLOAT_DTYPES else "float32")
    shape = root.shape
    seed_value = None if gradient is None else gradient.value
    if seed_value is not None and seed_value.shape != shape:
        raise AutogradError(
            f"Mismatch in shape: grad_output[0] has a shape of {autograd.torch_size(seed_value.shape)} and "
            f"output[0] has a shape of {autograd.torch_size(shape)}."
        )
    if seed_value is None and root.requires_grad and math.prod(shape) != 1:
        raise AutogradError(autograd.NOT_SCALAR)
    if not root.requires_grad:
        raise AutogradError(autograd.NO_GRAD)
    if inputs is not None:
        for tensor in inputs:
            if not tensor.requires_grad:
                raise AutogradError(NO_REQUIRES)
    laid = _lay_out(root)
    if any(fn.freed and fn.op.saves_tensors for fn in laid.fns):
        raise AutogradError(autograd.SECOND_PASS)
    seed = np.ones(shape, dtype=dtype) if seed_value is None else np.asarray(seed_value, dtype=dtype)
    adjoints = autograd.backward(laid.graph, laid.values, seed, dtype)
    if not retain_graph:
        for fn in laid.fns:
            fn.freed = True
    if inputs is not None:
        found = []
        for position, tensor in enumerate(inputs):
            index = None
            if tensor.grad_fn is not None:
                index = laid.fn_index.get(id(tensor.grad_fn))
            else:
                index = next((i for i, t in laid.leaves.items() if t is tensor), None)
            adjoint = None if index is None else adjoints[index]
            if adjoint is None:
                raise AutogradError(UNUSED.format(position))
            found.append(np.asarray(adjoint, dtype=dtype))
        return found
    for index, tensor in laid.leaves.items():
        if adjoints[index] is not None:
            accumulate(tensor, np.asarray(adjoints[index], dtype=tensor.dtype))
    for fn in laid.fns:
        if fn.retained is not None and adjoints[laid.fn_index[id(fn)]] is not None:
            accumulate(fn.retained, np.asarray(adjoints[laid.fn_index[id(fn)]], dtype=fn.retained.dtype))
    return None


def accumulate(tensor: Tensor, adjoint: np.ndarray) -> None:
    """AccumulateGrad: the first pass stores a new tensor, later passes add in place."""
    adjoint = np.broadcast_to(adjoint, tensor.shape)
    if tensor._grad is None:
        tensor._grad = Tensor(np.array(adjoint, dtype=tensor.dtype))
    else:
        tensor._grad.assign(tensor._grad.value + adjoint)


def check_shape(shape: Any) -> None:
    if any(n < 0 for n in shape):
        raise ShapeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
