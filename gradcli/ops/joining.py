"""Joining: torch.cat and torch.stack, whose tensors come as one list (`torch.cat([a, b], 1)`).

PyTorch records one CatBackward0 (StackBackward0) with a next function per listed tensor,
so a call is one node with as many operands as the list holds. A record's arity is fixed
(the engine, the parser and `gradcli ops` read it from the VJP tuple), so each list length
has a record of its own, `cat2` for two tensors, as `index1` is the record for one index
tensor; `LISTED` maps the name a program calls to them by length. The VJPs follow
derivatives.yaml: cat's is `cat_tensors_backward` (each operand gets its narrow of g along
dim, a slice node: SliceBackward0 under create_graph), stack's is `stack_tensors_backward`
(each operand gets g.select(dim, i): SelectBackward0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import ShapeError
from .core import Batching, Op, Param, Shape, Spelling, _fn, _normalise_dim, call

# One record per list length: up to MAX_LISTED they are in the registry (and `gradcli ops`);
# a longer list's record is made when a call first needs it (per-sample gradients stack 64,
# a DataLoader's default_collate stacks a batch), up to MAX_JOINED tensors in one call.
MAX_LISTED = 8
MAX_JOINED = 100_000


def _cat_shape(*shapes: Shape, dim: int = 0) -> Shape:
    """torch.cat's checks, in its order and words."""
    for position, shape in enumerate(shapes):
        if not shape:
            raise ShapeError(f"zero-dimensional tensor (at position {position}) cannot be concatenated")
    first = shapes[0]
    d = _normalise_dim(dim, len(first))
    for shape in shapes[1:]:
        if len(shape) != len(first):
            raise ShapeError(
                f"Tensors must have same number of dimensions: got {len(first)} and {len(shape)}"
            )
    for number, shape in enumerate(shapes[1:], start=1):
        for axis, (want, got) in enumerate(zip(first, shape)):
            if axis != d and want != got:
                raise ShapeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {want} but "
                    f"got size {got} for tensor number {number} in the list."
                )
    return first[:d] + (sum(shape[d] for shape in shapes),) + first[d + 1 :]


def _stack_shape(*shapes: Shape, dim: int = 0) -> Shape:
    first = shapes[0]
    for entry, shape in enumerate(shapes[1:], start=1):
        if shape != first:
            raise ShapeError(
                f"stack expects each tensor to be equal size, but got {list(first)} at entry 0 "
                f"and {list(shape)} at entry {entry}"
            )
    d = _normalise_dim(dim, len(first) + 1)
    return first[:d] + (len(shapes),) + first[d:]


def _cat(*tensors: Any, dim: int = 0) -> np.ndarray:
    arrays = [np.asarray(t) for t in tensors]
    return np.concatenate(arrays, axis=_normalise_dim(dim, arrays[0].ndim))


def _stack(*tensors: Any, dim: int = 0) -> np.ndarray:
    arrays = [np.asarray(t) for t in tensors]
    return np.stack(arrays, axis=_normalise_dim(dim, arrays[0].ndim + 1))


def _span(shapes: tuple[Shape, ...], position: int, dim: int) -> tuple[int, int, int]:
    """(dim, start, length) of operand `position`'s part of cat's result."""
    d = _normalise_dim(dim, len(shapes[0]))
    start = sum(shape[d] for shape in shapes[:position])
    return d, start, shapes[position][d]


def _cat_grad(position: int) -> Callable[..., np.ndarray]:
    """derivatives.yaml cat_tensors_backward: operand `position` gets its narrow of g."""

    def rule(g, out, *tensors, dim=0):
        d, start, length = _span(tuple(np.shape(t) for t in tensors), position, dim)
        return call("slice", g, dim=d, start=start, end=start + length, step=1)  # a narrow

    return rule


def _stack_grad(position: int) -> Callable[..., np.ndarray]:
    """derivatives.yaml stack_tensors_backward: operand `position` gets g.select(dim, position)."""

    def rule(g, out, *tensors, dim=0):
        d = _normalise_dim(dim, np.ndim(tensors[0]) + 1)
        return call("select", g, dim=d, index=position)

    return rule


# ---------------------------------------------------------------- sympy forms and steps
# Tensor-level ops: cat(a, b, dim) and stack(a, b, dim) are named, as index(...) is, and an
# operand's adjoint is the part of g it became: narrow(g, dim, start, length), select(g, dim, i).


def _written(function: str) -> Callable[[list[str], dict], str]:
    def written(operands: list[str], attrs: dict) -> str:
        dim = attrs.get("dim", 0)
        return f"torch.{function}([{', '.join(operands)}]" + (f", dim={dim})" if dim else ")")

    return written


DIM0 = Param("dim", 0, "dim")


def _make(function: str, count: int) -> Op:
    cat = function == "cat"
    return Op(
        f"{function}{count}",
        f"torch.{function}([a, b], dim=0) with {count} tensor{'s' if count > 1 else ''}",
        forward=_cat if cat else _stack,
        vjp=tuple((_cat_grad if cat else _stack_grad)(i) for i in range(count)),
        sympy=lambda sp, *tensors, shapes=(), dim=0: _fn(sp, function)(*tensors, dim),
        grad_fn="CatBackward0" if cat else "StackBackward0",
        torch=f"torch.{function}",
        domain=(
            "tensors of one rank, equal sizes except along dim"
            if cat
            else "tensors of one shape; dim counts the new axis"
        ),
        saves_tensors=False,  # only sizes and dtypes: a second backward needs no retain_graph
        elementwise=False,
        function=False,  # called by the list form, through LISTED
        method=False,
        params=(DIM0,),
        batching=Batching("along", dims=(("dim", 0),)),
        infer_shape=_cat_shape if cat else _stack_shape,
        written=_written(function),
    )


class ByCount(dict):
    """A joining op's records by list length: the listed ones, and each longer one once a call
    has needed it (`record`)."""

    def __init__(self, function: str) -> None:
        super().__init__({count: _make(function, count) for count in range(1, MAX_LISTED + 1)})
        self.function = function

    def record(self, count: int) -> Op | None:
        """The record for `count` tensors (None past MAX_JOINED)."""
        found = self.get(count)
        if found is None and MAX_LISTED < count <= MAX_JOINED:
            found = self[count] = _make(self.function, count)
        return found


_RECORDS = {function: ByCount(function) for function in ("cat", "stack")}
OPS: tuple[Op, ...] = tuple(op for by_count in _RECORDS.values() for op in by_count.values())
# The names a program calls with a list of tensors, and the record for each list length.
LISTED: dict[str, ByCount] = dict(_RECORDS)


def long_record(name: str) -> Op | None:
    """`stack64`: the record of a list longer than the registry lists, by name (None if not one)."""
    function = name.rstrip("0123456789")
    digits = name[len(function) :]
    if function not in _RECORDS or not digits or int(digits) <= MAX_LISTED:
        return None
    return _RECORDS[function].record(int(digits))
TORCH_ALIASES: dict[str, Spelling] = {
    "concat": Spelling("cat"),
    "concatenate": Spelling("cat"),
}
# torch's words for an empty list, per function.
EMPTY_LIST = {
    "cat": "torch.cat(): expected a non-empty list of Tensors",
    "stack": "stack expects a non-empty TensorList",
}
