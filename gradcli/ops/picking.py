"""Picking by class index: `x.gather(dim, index)` (GatherBackward0) and `F.one_hot` (int64, no grad).

An index is an int64 tensor (a --const such as [[0, 3], [2, 2]]), held as whole floats like
every gradcli value; the forward checks each index against torch's bounds (gather does not
wrap negative indices, one_hot refuses them) and raises torch's error.
"""

from __future__ import annotations

import numpy as np

from ..errors import IndexOutOfRange, ShapeError
from .core import Batching, Composite, Op, Param, Shape, _fn, _normalise_dim, call


def _indices(index, size: int, dim: int) -> np.ndarray:
    array = np.asarray(index)
    if array.size and (not np.all(np.isfinite(array)) or np.any(array != np.round(array))):
        raise ShapeError("gather(): Expected dtype int32/int64 for index")
    bad = array[(array < 0) | (array >= size)] if array.size else array
    if bad.size:  # checked before the cast: 1e30 is no int64 (torch does not wrap -1 here)
        value = float(bad.flat[0])
        shown = str(int(value)) if abs(value) < 2**63 else f"{value:.0f}"
        raise ShapeError(f"index {shown} is out of bounds for dimension {dim} with size {size}")
    return array.astype(np.int64)


def _gather_shape(a: Shape, index: Shape, dim: int | None = None) -> Shape:
    if dim is None:
        raise ShapeError("gather() missing 1 required argument: 'dim'")
    d = _normalise_dim(dim, len(a))
    if len(index) != len(a) and not (len(a) == 0 and len(index) <= 1):
        raise ShapeError("Index tensor must have the same number of dimensions as input tensor")
    for i, (n, m) in enumerate(zip(index, a)):
        if i != d and n > m:
            raise ShapeError(
                f"Size does not match at dimension {i} expected index {list(index)} to be no larger than "
                f"self {list(a)} apart from dimension {d}"
            )
    return tuple(index)


def _gather(a, index, dim: int = 0):
    a = np.asarray(a)
    d = _normalise_dim(dim, a.ndim)
    if a.ndim == 0:  # a 0-d input has one element: every index must be 0
        return np.broadcast_to(a, _indices(index, 1, dim).shape).copy()
    idx = _indices(index, a.shape[d], dim)
    positions = list(np.indices(idx.shape, sparse=True))  # the index's own position off dim
    positions[d] = idx
    return a[tuple(positions)]


def _gather_grad(g, out, a, index, dim: int = 0):
    # derivatives.yaml: gather_backward, zeros(self).scatter_add(dim, index, grad): repeats add up
    a = np.asarray(a)
    grad = np.zeros(a.shape, dtype=np.result_type(g))
    if a.ndim == 0:
        return grad + np.sum(g)  # every index is 0 (checked forward)
    d = _normalise_dim(dim, a.ndim)
    idx = _indices(index, a.shape[d], dim)
    positions = list(np.indices(idx.shape, sparse=True))
    positions[d] = idx
    np.add.at(grad, tuple(positions), np.asarray(g))
    return grad


def _gather_vjp(g, out, a, index, dim: int = 0):
    """derivatives.yaml gather_backward: zeros(self).scatter_add(dim, index, grad), the kernel
    (ScatterAddBackward0 under create_graph) whose own derivative gathers again."""
    if np.ndim(a) == 0:
        return _gather_grad(g, out, a, index, dim)
    return call("scatter_add", g, index, dim=_normalise_dim(dim, np.ndim(a)), shape=tuple(np.shape(a)))


def _one_hot_shape(a: Shape, num_classes: int = -1) -> Shape:
    if num_classes == -1:
        raise ShapeError(
            "one_hot without num_classes takes its size from the values; give it: F.one_hot(y, num_classes=5)"
        )
    return (*a, max(num_classes, 0))


def _one_hot_classes(attrs: dict, value_of) -> dict:
    """num_classes=-1: torch counts the classes as the largest index plus one."""
    if attrs.get("num_classes", -1) != -1:
        return attrs
    values = np.asarray(value_of(0))
    if values.size == 0:
        raise ShapeError("Can not infer total number of classes from empty tensor.")
    if values.min() < 0:
        raise ShapeError("Class values must be non-negative.")
    return {**attrs, "num_classes": int(values.max()) + 1}


def _one_hot(a, num_classes: int = -1):
    a = np.asarray(a)
    if a.size and (not np.all(np.isfinite(a)) or np.any(a != np.round(a))):
        raise ShapeError("one_hot is only applicable to index tensor of type LongTensor.")
    if a.size and a.min() < 0:
        raise ShapeError("Class values must be non-negative.")
    if num_classes <= 0 or (a.size and a.max() >= num_classes):
        raise ShapeError("Class values must be smaller than num_classes.")
    return (a[..., None] == np.arange(num_classes)).astype(np.result_type(a, np.float32))


def _embedding_shape(indices: Shape, weight: Shape, padding_idx=None) -> Shape:
    if len(weight) != 2:
        raise ShapeError("'weight' must be 2-D")
    if padding_idx is not None and not -weight[0] <= padding_idx < weight[0]:
        raise ShapeError("Padding_idx must be within num_embeddings")
    return tuple(indices) + (weight[1],)


def _embedding_rows(indices, count: int) -> np.ndarray:
    rows = np.asarray(indices)
    if rows.size and (rows.min() < 0 or rows.max() >= count):
        raise IndexOutOfRange("index out of range in self")
    return rows.astype(np.int64)


def _embedding(indices, weight, padding_idx=None):
    """F.embedding(input, weight): the rows of weight that input names (weight[input])."""
    weight = np.asarray(weight)
    return weight[_embedding_rows(indices, weight.shape[0])]


def _embedding_grad(g, out, indices, weight, padding_idx=None):
    """embedding_dense_backward: each looked-up row's gradient added into its row of zeros;
    the padding_idx row gets none."""
    weight = np.asarray(weight)
    rows = _embedding_rows(indices, weight.shape[0]).reshape(-1)
    grad = np.zeros(weight.shape, dtype=np.result_type(g))
    np.add.at(grad, rows, np.reshape(g, (-1, weight.shape[1])))
    if padding_idx is not None:
        grad[padding_idx % weight.shape[0]] = 0
    return grad


OPS: tuple[Op, ...] = (
    Op(
        "embedding",
        "F.embedding(index, W) or F.embedding(y, W, padding_idx=0)",
        forward=_embedding,
        vjp=(lambda g, out, indices, weight, padding_idx=None: np.zeros(np.shape(indices)), _embedding_grad),
        sympy=lambda sp, indices, weight, shapes=(), padding_idx=None: _fn(sp, "embedding")(indices, weight),
        grad_fn="EmbeddingBackward0",
        torch="torch.nn.functional.embedding",
        domain="int64 indices within W's rows; W 2-D",
        saves_tensors=True,
        elementwise=False,
        method=False,
        params=(Param("padding_idx", None, "int"),),
        infer_shape=_embedding_shape,
        written=lambda texts, attrs: f"F.embedding({texts[0]}, {texts[1]}"
        + ("" if attrs.get("padding_idx") is None else f", padding_idx={attrs['padding_idx']}")
        + ")",
    ),
    Op(
        "gather",
        "x.gather(dim, index) or torch.gather(x, dim, index)",
        forward=_gather,
        vjp=(_gather_vjp, lambda g, out, a, index, dim=0: np.zeros(np.shape(index))),
        sympy=lambda sp, a, index, shapes=(), dim=0: _fn(sp, "gather")(a, dim, index),
        grad_fn="GatherBackward0",
        torch="torch.gather",
        saves_tensors=True,
        elementwise=False,
        params=(Param("dim", None, "dim"),),
        infer_shape=_gather_shape,
        written=lambda texts, attrs: f"{texts[0]}.gather({attrs['dim']}, {texts[1]})",
        batching=Batching("along", dims=(("dim", 0),)),
    ),
)

# F.one_hot's record: its operand is an int64 tensor, so it never meets a leaf; F.one_hot
# (the composite below) is how a program reaches it.
INTERNAL: tuple[Op, ...] = (
    Op(
        "_one_hot",
        "(internal) F.one_hot(y, num_classes)",
        forward=_one_hot,
        vjp=(lambda g, out, a, num_classes=-1: np.zeros(np.shape(a)),),
        sympy=lambda sp, a, shapes=(), num_classes=-1: _fn(sp, "one_hot")(a, num_classes),
        grad_fn="None",
        torch="torch.nn.functional.one_hot",
        saves_tensors=False,
        elementwise=False,
        function=False,
        method=False,
        differentiable=False,
        params=(Param("num_classes", -1, "int"),),
        infer_shape=_one_hot_shape,
        from_values=_one_hot_classes,
        written=lambda texts, attrs: f"F.one_hot({texts[0]}, num_classes={attrs['num_classes']})",
    ),
)

COMPOSITES: tuple[Composite, ...] = (
    Composite(
        "one_hot",
        1,
        (Param("num_classes", -1, "int"),),
        lambda apply, y, num_classes=-1, **_: apply("_one_hot", y, num_classes=num_classes),
        torch="torch.nn.functional.one_hot",
        derivative="an int64 tensor of 0s and 1s (no gradient)",
        shaped=True,
    ),
)

# torch's argument order, where a param sits between tensors: torch.gather(input, dim, index).
SIGNATURES: dict[str, tuple[str, ...]] = {"gather": ("input", "dim", "index")}
