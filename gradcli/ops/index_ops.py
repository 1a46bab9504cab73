"""Writing and reading whole slices along a dim by an index vector: `x.index_add(dim, index,
source, alpha=)`, `x.index_copy(dim, index, source)`, `x.index_fill(dim, index, value)` and
`x.index_select(dim, index)` (their in-place forms are `run`'s, through script/tensor_methods.py).

The index is a 1-D (or 0-D) int64 tensor; gradcli holds it as whole floats like every value, so
the forward checks it and raises torch's error (each op words its own: index_add's bounds error
is a RuntimeError, index_copy's an IndexError naming itself, index_fill wraps negative indices).
Shapes are checked before anything is computed, in the order ATen's meta functions check them.
Rules follow derivatives.yaml: index_add passes g to self and gives source alpha times g's
selected slices; index_copy and index_fill give self g with the written slices zeroed; the
value of index_fill.int_Tensor gets the sum of g over the filled slices (each index once).
"""

from __future__ import annotations

import numpy as np

from ..errors import IndexOutOfRange, ShapeError
from .core import Op, Param, Shape, _fn, _normalise_dim, call

DIM = Param("dim", None, "dim")


def _dim(dim: int | None, ndim: int) -> int:
    if dim is None:
        raise ShapeError("missing 1 required argument: 'dim'")
    return _normalise_dim(dim, ndim)


def _shown(value: float) -> str:
    return str(int(value)) if abs(value) < 2**63 else f"{value:.0f}"


def _bounds_error(kind, prefix: str, index, size: int, dim: int, wrap: bool = False) -> np.ndarray:
    array = np.asarray(index).reshape(-1)
    low = -size if wrap else 0
    bad = array[(array < low) | (array >= size)]
    if bad.size:
        raise kind(
            f"{prefix}index {_shown(float(bad.flat[0]))} is out of bounds for dimension {dim} with size {size}"
        )
    return np.where(array < 0, array + size, array).astype(np.int64)


_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int", "bool": "Bool"}


def same_dtypes(name: str, a, index, source) -> None:
    """torch's refusals by exact dtype (an int32 index where only int64 goes, a source of
    another dtype than self), as far as the arrays show them: `run` keeps each tensor's own
    dtype here unless the op computes it in a wider one (gradcli grad's values are all float64)."""
    index_dtype, mine, theirs = (np.asarray(v).dtype.name for v in (index, a, source))
    if index_dtype == "int32" and name == "index_copy":
        raise ShapeError("index_copy_(): Expected a long tensor for index, but got Int")
    if index_dtype == "int32" and name == "index_fill":
        raise IndexOutOfRange("index_fill_(): Expected dtype int64 for index.")
    if name == "index_fill" or mine == theirs or mine not in _NAMES or theirs not in _NAMES:
        return
    if name == "index_add":
        raise ShapeError(
            f"index_add_(): self ({_NAMES[mine]}) and source ({_NAMES[theirs]}) must have the same scalar type"
        )
    raise ShapeError(
        "index_copy_(): self and source expected to have the same dtype, but got (self) "
        f"{_NAMES[mine]} and (source) {_NAMES[theirs]}"
    )


def _add_rows(index, size: int, dim: int, alpha: float, ndim: int) -> np.ndarray:
    """index_add's kernel: with alpha (of a tensor of 2 dims or more) it adds slice by slice,
    whose check is index_select's IndexError; else the iterator's RuntimeError names the index."""
    if alpha != 1 and ndim > 1:
        array = np.asarray(index).reshape(-1)
        if array.size and (array.min() < 0 or array.max() >= size):
            raise IndexOutOfRange("index out of range in self")
    return _bounds_error(ShapeError, "", index, size, dim)


def check_index_bounds(name: str, index, size: int, dim: int, alpha: float = 1, ndim: int = 1) -> None:
    """The bounds error of `name`'s kernel for an exact integer index (`run` checks the index
    before the forward sees it as floats, where 10**12 would print rounded)."""
    if name == "index_add":
        _add_rows(index, size, dim, alpha, ndim)
    elif name == "index_copy":
        _bounds_error(IndexOutOfRange, "index_copy_(): ", index, size, dim)
    elif name == "index_fill":
        _bounds_error(IndexOutOfRange, "", index, size, dim, wrap=True)


def _moved(array: np.ndarray, dim: int) -> np.ndarray:
    """A view with dim first (a 0-d tensor as one slice of nothing)."""
    return array.reshape(1) if array.ndim == 0 else np.moveaxis(array, dim, 0)


def _listed(shape: Shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


# -- index_add ---------------------------------------------------------------------------


def _add_shape(a: Shape, index: Shape, source: Shape, dim: int | None = None, alpha: float = 1) -> Shape:
    d = _dim(dim, len(a))
    if len(index) > 1:
        raise IndexOutOfRange(
            f"index_add_(): Index is supposed to be a vector, but got dim: {len(index)} with type: Long "
            f"and size: {_listed(index)}"
        )
    if not (d == 0 or d < len(source)):
        raise ShapeError(
            f"index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim {len(source)}"
        )
    count = int(np.prod(index, dtype=np.int64))
    along = 1 if not source else source[d]
    if count != along:
        raise ShapeError(
            f"index_add_(): Number of indices ({count}) should be equal to source.size(dim): ({along}), "
            f"for dim: {d}"
        )
    if (len(a) or len(source)) and not (
        len(a) == len(source) and all(n == m for i, (n, m) in enumerate(zip(a, source)) if i != d)
    ):
        raise ShapeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = {_listed(a)} source.shape = {_listed(source)}"
        )
    return tuple(a)


def _index_add(a, index, source, dim: int = 0, alpha: float = 1):
    same_dtypes("index_add", a, index, source)
    a = np.asarray(a)
    d = _normalise_dim(dim, a.ndim)
    rows = _add_rows(index, a.shape[d] if a.ndim else 1, d, alpha, a.ndim)
    out = np.array(a, copy=True)
    added = np.asarray(source) if alpha == 1 else np.asarray(source) * alpha
    np.add.at(_moved(out, d), rows, _moved(added.astype(out.dtype, copy=False), d))
    return out


def _select_slices(g, index, source, dim: int):
    """g's slices at the index, in source's shape (derivatives.yaml's index_select(...).expand_as)."""
    picked = call("index_select", g, index, dim=dim)
    if np.shape(picked) != np.shape(source):
        picked = np.reshape(picked, np.shape(source))
    return picked


def _index_add_source(g, out, a, index, source, dim: int = 0, alpha: float = 1):
    picked = _select_slices(g, index, source, _normalise_dim(dim, np.ndim(a)))
    return picked if alpha == 1 else call("mul", picked, alpha)


# -- index_copy --------------------------------------------------------------------------


def _copy_shape(a: Shape, index: Shape, source: Shape, dim: int | None = None) -> Shape:
    d = _dim(dim, len(a))
    count = int(np.prod(index, dtype=np.int64))
    if not source and count != 1:
        raise IndexOutOfRange(
            f"index_copy_(): When source is scalar, index should have one element (got {count})"
        )
    if len(source) != len(a) and source and a:
        raise IndexOutOfRange(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
            f"Source dimensionality ({len(source)}), destination dimensionality ({len(a)})"
        )
    mine = [n for i, n in enumerate(a) if i != d]
    theirs = [n for i, n in enumerate(source) if i != d]
    if mine != theirs:
        raise ShapeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
            f"{' '.join(map(str, mine))} at dimension {d} and source slice shape: {' '.join(map(str, theirs))} "
            "at dimension 0."
        )
    if len(index) >= 2:
        raise IndexOutOfRange(f"index_copy_(): Index should have dimension 1 or 0 (got {len(index)})")
    if source and count != source[d]:
        raise IndexOutOfRange(
            f"index_copy_(): Number of indices ({count}) should be equal to source.size(dim) ({source[d]})"
        )
    return tuple(a)


def _index_copy(a, index, source, dim: int = 0):
    same_dtypes("index_copy", a, index, source)
    a = np.asarray(a)
    d = _normalise_dim(dim, a.ndim)
    rows = _bounds_error(IndexOutOfRange, "index_copy_(): ", index, a.shape[d] if a.ndim else 1, d)
    out = np.array(a, copy=True)
    values = np.asarray(source).astype(out.dtype, copy=False)
    _moved(out, d)[rows] = _moved(values, d).reshape((len(rows),) + _moved(out, d).shape[1:])
    return out


# -- index_fill --------------------------------------------------------------------------


def _fill_shape(a: Shape, index: Shape, value: Shape, dim: int | None = None) -> Shape:
    if value:
        raise ShapeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{len(value)} dimension(s)."
        )
    if dim is not None:  # (a missing dim is the forward's error: `gradcli ops` lists both nodes)
        _dim(dim, len(a))
    if len(index) > 1:
        raise ShapeError("Index has to be a vector/scalar")
    return tuple(a)


def _fill_rows(a: np.ndarray, index, dim: int) -> tuple[int, np.ndarray]:
    d = _dim(dim, a.ndim)
    return d, _bounds_error(IndexOutOfRange, "", index, a.shape[d] if a.ndim else 1, d, wrap=True)


def _index_fill(a, index, value, dim: int = 0):
    same_dtypes("index_fill", a, index, value)
    a = np.asarray(a)
    d, rows = _fill_rows(a, index, dim)
    out = np.array(a, copy=True)
    _moved(out, d)[rows] = np.asarray(value).astype(out.dtype)
    return out


def _index_fill_self(g, out, a, index, value=0.0, dim: int = 0):
    # derivatives.yaml: grad.index_fill(dim, index, 0) (IndexFillBackward0 under create_graph)
    return call("index_fill", g, index, 0.0, dim=dim)


def _index_fill_value(g, out, a, index, value=0.0, dim: int = 0):
    # derivatives.yaml: grad.index_select(dim, std::get<0>(at::_unique(index, false))).sum(): each
    # index once, and unwrapped (a negative index, which the forward took, is index_select's error)
    d = _normalise_dim(dim, np.ndim(a))
    return call(
        "sum", call("index_select", g, np.unique(getattr(index, "value", index)).astype(np.float64), dim=d)
    )


# -- index_select ------------------------------------------------------------------------


def _select_shape(a: Shape, index: Shape, dim: int | None = None) -> Shape:
    d = _dim(dim, len(a))
    if len(index) > 1:
        raise IndexOutOfRange("index_select(): Index is supposed to be a vector")
    count = int(np.prod(index, dtype=np.int64))
    if not a:
        if count != 1:
            raise ShapeError(f"index_select(): Index to scalar can have only 1 value, got {count} value(s)")
        return tuple(index)
    return tuple(a[:d]) + (count,) + tuple(a[d + 1 :])


def _index_select(a, index, dim: int = 0):
    a = np.asarray(a)
    d = _normalise_dim(dim, a.ndim)
    array = np.asarray(index).reshape(-1)
    if array.size and (array.min() < 0 or array.max() >= (a.shape[d] if a.ndim else 1)):
        raise IndexOutOfRange("index out of range in self")
    rows = array.astype(np.int64)
    if a.ndim == 0:
        return np.broadcast_to(a, np.shape(index)).copy()
    return np.take(a, rows, axis=d)


def _index_select_grad(g, out, a, index, dim: int = 0):
    # derivatives.yaml: index_select_backward, zeros(self).index_add_(dim, index, grad)
    zeros = np.zeros(np.shape(a), dtype=np.result_type(np.asarray(g) if isinstance(g, np.ndarray) else g))
    if np.ndim(a) == 0:
        return call("sum", g)
    return call("index_add", zeros, index, g, dim=_normalise_dim(dim, np.ndim(a)))


def _zeros_like_index(g, out, a, index, *rest, **attrs):
    return np.zeros(np.shape(index))


def _fill_grad_fn(kinds, shapes, attrs) -> str:
    return "IndexFillBackward0" if kinds[2] == "number" else "IndexFillBackward1"


def _written(name: str):
    def written(texts: list[str], attrs: dict) -> str:
        rest = ", ".join(texts[1:2] + texts[2:])
        alpha = attrs.get("alpha", 1)
        tail = f", alpha={alpha!r}" if name == "index_add" and alpha != 1 else ""
        return f"{texts[0]}.{name}({attrs['dim']}, {rest}{tail})"

    return written


OPS: tuple[Op, ...] = (
    Op(
        "index_add",
        "x.index_add(dim, index, source, alpha=1) or torch.index_add(x, dim, index, source)",
        forward=_index_add,
        vjp=(
            lambda g, out, a, index, source, dim=0, alpha=1: g,
            _zeros_like_index,
            _index_add_source,
        ),
        sympy=lambda sp, a, index, source, shapes=(), dim=0, alpha=1: _fn(sp, "index_add")(
            a, dim, index, source
        ),
        grad_fn="IndexAddBackward0",
        torch="torch.index_add",
        domain="a 1-D int64 index within x's size along dim; source shaped as x but along dim",
        saves_tensors=True,
        elementwise=False,
        params=(DIM, Param("alpha", 1, "number", keyword_only=True)),
        infer_shape=_add_shape,
        written=_written("index_add"),
    ),
    Op(
        "index_copy",
        "x.index_copy(dim, index, source) or torch.index_copy(x, dim, index, source)",
        forward=_index_copy,
        vjp=(
            lambda g, out, a, index, source, dim=0: call("index_fill", g, index, 0.0, dim=dim),
            _zeros_like_index,
            lambda g, out, a, index, source, dim=0: _select_slices(
                g, index, source, _normalise_dim(dim, np.ndim(a))
            ),
        ),
        sympy=lambda sp, a, index, source, shapes=(), dim=0: _fn(sp, "index_copy")(a, dim, index, source),
        grad_fn="IndexCopyBackward0",
        torch="torch.index_copy",
        domain="a 1-D int64 index within x's size along dim (distinct indices); source shaped as x but along dim",
        saves_tensors=True,
        elementwise=False,
        params=(DIM,),
        infer_shape=_copy_shape,
        written=_written("index_copy"),
    ),
    Op(
        "index_fill",
        "x.index_fill(dim, index, value) or torch.index_fill(x, dim, index, value)",
        forward=_index_fill,
        vjp=(_index_fill_self, _zeros_like_index, _index_fill_value),
        sympy=lambda sp, a, index, value, shapes=(), dim=0: _fn(sp, "index_fill")(a, dim, index, value),
        grad_fn="IndexFillBackward0",
        pick_grad_fn=_fill_grad_fn,
        torch="torch.index_fill",
        domain="a 1-D int64 index (negative counts from the end); value a number or a 0-d tensor",
        saves_tensors=True,
        elementwise=False,
        params=(DIM,),
        infer_shape=_fill_shape,
        written=_written("index_fill"),
    ),
    Op(
        "index_select",
        "x.index_select(dim, index) or torch.index_select(x, dim, index)",
        forward=_index_select,
        vjp=(_index_select_grad, _zeros_like_index),
        sympy=lambda sp, a, index, shapes=(), dim=0: _fn(sp, "index_select")(a, dim, index),
        grad_fn="IndexSelectBackward0",
        torch="torch.index_select",
        domain="a 1-D int64 index within x's size along dim",
        saves_tensors=True,
        elementwise=False,
        params=(DIM,),
        infer_shape=_select_shape,
        written=_written("index_select"),
    ),
)

# torch's argument order, where dim sits between the tensors: torch.index_add(input, dim, index, source).
SIGNATURES: dict[str, tuple[str, ...]] = {
    "index_add": ("input", "dim", "index", "source"),
    "index_copy": ("input", "dim", "index", "source"),
    "index_fill": ("input", "dim", "index", "value"),
    "index_select": ("input", "dim", "index"),
}
