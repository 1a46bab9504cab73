"""Shape ops: reshape, view, flatten, squeeze, unsqueeze, permute, transpose, expand, repeat, clone.

Each moves or copies elements without arithmetic, so every VJP puts the incoming gradient
back in the operand's layout (a reshape, the inverse permutation) or, where elements were
copied (expand, repeat), sums the copies, as PyTorch's derivatives.yaml does. PyTorch's
shape checks run in `infer_shape` before anything is computed, with its error texts.

Each graph node knows its strides (ops/strides.py), so torch's reshape of a transposed
tensor (CloneBackward0 then UnsafeViewBackward0) and its view error are as in torch;
`view_strides` is torch's computeStride, the check that decides them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import IndexOutOfRange, ShapeError
from .core import (
    Batching,
    Composite,
    Op,
    Param,
    Shape,
    Spelling,
    _fn,
    _normalise_dim,
    call,
    unbroadcast,
)

# ---------------------------------------------------------------- shape checks, as torch words them


def _listed(sizes: Sequence[int]) -> str:
    """A shape as torch prints it in messages: [2, -1]."""
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def _missing(name: str, param: str) -> ShapeError:
    return ShapeError(f'{name}() missing 1 required positional arguments: "{param}"')


def _infer_size(shape: Shape | None, numel: int, name: str = "reshape") -> Shape:
    """torch's infer_size: one -1 takes what the other sizes leave."""
    if shape is None:
        raise _missing(name, "shape" if name == "reshape" else "size")
    known, inferred = 1, None
    for index, size in enumerate(shape):
        if size == -1:
            if inferred is not None:
                raise ShapeError("only one dimension can be inferred")
            inferred = index
        elif size >= 0:
            known *= size
        else:
            raise ShapeError(f"invalid shape dimension {size} at index {index} of shape {_listed(shape)}")
    if inferred is None and numel == known or (inferred is not None and known > 0 and numel % known == 0):
        result = list(shape)
        if inferred is not None:
            result[inferred] = numel // known
        return tuple(result)
    if inferred is not None and known == 0 and numel == 0:  # reshape(-1, 0) of an empty tensor
        raise ShapeError(
            f"cannot reshape tensor of 0 elements into shape {_listed(shape)} because the "
            "unspecified dimension size -1 can be any value and is ambiguous"
        )
    raise ShapeError(f"shape '{_listed(shape)}' is invalid for input of size {numel}")


def _reshape_shape(a: Shape, shape: Shape | None = None) -> Shape:
    return _infer_size(shape, math.prod(a), "reshape")


def _view_shape(a: Shape, size: Shape | None = None) -> Shape:
    return _infer_size(size, math.prod(a), "view")


def _flatten_dims(ndim: int, start_dim: int, end_dim: int) -> tuple[int, int]:
    start = _normalise_dim(start_dim, ndim)
    end = _normalise_dim(end_dim, ndim)
    if start > end:
        raise ShapeError("flatten() has invalid args: start_dim cannot come after end_dim")
    return start, end


def _flatten_shape(a: Shape, start_dim: int = 0, end_dim: int = -1) -> Shape:
    start, end = _flatten_dims(len(a), start_dim, end_dim)
    if not a:
        return (1,)  # torch: a 0-d tensor flattens to one element
    return a[:start] + (math.prod(a[start : end + 1]),) + a[end + 1 :]


def _squeeze_shape(a: Shape, dim: int | None = None) -> Shape:
    d = _normalise_dim(dim, len(a))
    if not a:
        return ()
    if d is None:
        return tuple(n for n in a if n != 1)
    return a[:d] + a[d + 1 :] if a[d] == 1 else a


def _unsqueeze_dim(ndim: int, dim: int | None) -> int:
    if dim is None:
        raise _missing("unsqueeze", "dim")
    return _normalise_dim(dim, ndim + 1)


def _unsqueeze_shape(a: Shape, dim: int | None = None) -> Shape:
    d = _unsqueeze_dim(len(a), dim)
    return a[:d] + (1,) + a[d:]


def _permutation(ndim: int, dims: Shape | None) -> tuple[int, ...]:
    if dims is None:  # np.transpose(x) without axes: every dim reversed, as x.T
        return tuple(reversed(range(ndim)))
    if len(dims) != ndim:
        raise ShapeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
            f"of the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to "
            f"len(dims) = {len(dims)}"
        )
    normalised = tuple(_normalise_dim(d, ndim) for d in dims)
    if len(set(normalised)) != len(normalised):
        raise ShapeError("permute(): duplicate dims are not allowed.")
    return normalised


def _permute_shape(a: Shape, dims: Shape | None = None) -> Shape:
    return tuple(a[d] for d in _permutation(len(a), dims)) if a else ()


def _transpose_dims(ndim: int, dim0: int | None, dim1: int | None) -> tuple[int, int]:
    if dim0 is None or dim1 is None:
        raise _missing("transpose", "dim0" if dim0 is None else "dim1")
    return _normalise_dim(dim0, ndim), _normalise_dim(dim1, ndim)


def _transpose_shape(a: Shape, dim0: int | None = None, dim1: int | None = None) -> Shape:
    d0, d1 = _transpose_dims(len(a), dim0, dim1)
    if not a:
        return ()
    swapped = list(a)
    swapped[d0], swapped[d1] = a[d1], a[d0]
    return tuple(swapped)


def _mT_shape(a: Shape) -> Shape:
    if len(a) < 2:
        raise ShapeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got {len(a)}-D tensor."
        )
    return (*a[:-2], a[-1], a[-2])


def _expand_shape(a: Shape, size: Shape | None = None) -> Shape:
    """torch's expand: -1 keeps a size; a size-1 dim stretches; new dims go in front."""
    if size is None:
        raise _missing("expand", "size")
    if len(size) < len(a):
        raise ShapeError(
            f"expand(torch.DoubleTensor{{{_listed(a)}}}, size={_listed(size)}): the number of sizes "
            f"provided ({len(size)}) must be greater or equal to the number of dimensions in the "
            f"tensor ({len(a)})"
        )
    extra = len(size) - len(a)
    result: list[int] = []
    # torch checks from the last dim to the first, so its message names the last mismatch
    for index in reversed(range(len(size))):
        target = size[index]
        if index < extra:
            if target < 0:
                raise ShapeError(
                    f"The expanded size of the tensor ({target}) isn't allowed in a leading, "
                    f"non-existing dimension {index}"
                )
            result.insert(0, target)
            continue
        current = a[index - extra]
        if target == -1:
            target = current
        if current != target and current != 1:
            raise ShapeError(
                f"The expanded size of the tensor ({target}) must match the existing size ({current}) "
                f"at non-singleton dimension {index}.  Target sizes: {_listed(size)}.  "
                f"Tensor sizes: {_listed(a)}"
            )
        result.insert(0, target)
    return tuple(result)


def _repeat_shape(a: Shape, repeats: Shape | None = None) -> Shape:
    if repeats is None:
        raise _missing("repeat", "repeats")
    if len(repeats) < len(a):
        raise ShapeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    padded = (1,) * (len(repeats) - len(a)) + tuple(a)
    result = tuple(n * r for n, r in zip(padded, repeats))
    if any(n < 0 for n in result):
        negative = next(n for n in result if n < 0)
        raise ShapeError(f"Trying to create tensor with negative dimension {negative}: {_listed(result)}")
    return result


def view_strides(shape: Shape, strides: Shape, new_shape: Shape) -> Shape | None:
    """torch's computeStride: the strides `new_shape` has as a view, or None when it cannot be one.

    This is what decides view's "view size is not compatible" error and whether reshape
    records a view (ViewBackward0/ReshapeAliasBackward0) or a copy (CloneBackward0 then
    UnsafeViewBackward0); the graph calls it through strides.py.
    """
    if math.prod(shape) == 0:
        return tuple(_contiguous_strides(new_shape))
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = strides[-1] if strides else 1
    tensor_numel, view_numel = 1, 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = strides[d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def _contiguous_strides(shape: Shape) -> list[int]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return strides[::-1]


def is_contiguous(shape: Shape, strides: Shape) -> bool:
    """torch's is_contiguous: size-1 dims may have any stride."""
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


# ---------------------------------------------------------------- forwards and VJPs


def _reshape(a, shape=None):
    a = np.asarray(a)
    return np.reshape(a, _reshape_shape(a.shape, shape)).copy()


def _view(a, size=None):
    a = np.asarray(a)
    return np.reshape(a, _view_shape(a.shape, size)).copy()


def _back_to_operand(g, out, a, *args, **attrs):
    """Reshape-like ops only relabel elements: the gradient is g in the operand's shape."""
    return np.reshape(g, np.shape(a))


def _squeeze_grad(g, out, a, dim=None):
    # derivatives.yaml unsqueeze_to: each squeezed size-1 dim comes back, lowest first
    shape = np.shape(a)
    d = _normalise_dim(dim, len(shape))
    dropped = [i for i, n in enumerate(shape) if n == 1 and (d is None or i == d)]
    for i in dropped:
        g = call("unsqueeze", g, dim=i)
    return g


def _unsqueeze_grad(g, out, a, dim=None):
    # derivatives.yaml: grad.squeeze(dim)
    return call("squeeze", g, dim=_unsqueeze_dim(np.ndim(a), dim))


def _flatten(a, start_dim=0, end_dim=-1):
    a = np.asarray(a)
    return np.reshape(a, _flatten_shape(a.shape, start_dim, end_dim)).copy()


def _squeeze(a, dim=None):
    a = np.asarray(a)
    return np.reshape(a, _squeeze_shape(a.shape, dim)).copy()


def _unsqueeze(a, dim=None):
    a = np.asarray(a)
    return np.reshape(a, _unsqueeze_shape(a.shape, dim)).copy()


def _permute(a, dims=None):
    a = np.asarray(a)
    return np.transpose(a, _permutation(a.ndim, dims)).copy() if a.ndim else a.copy()


def _permute_grad(g, out, a, dims=None):
    # derivatives.yaml permute_backwards: the inverse permutation
    ndim = np.ndim(a)
    return np.transpose(g, np.argsort(_permutation(ndim, dims))) if ndim else g


def _transpose(a, dim0=None, dim1=None):
    a = np.asarray(a)
    d0, d1 = _transpose_dims(a.ndim, dim0, dim1)
    return np.swapaxes(a, d0, d1).copy() if a.ndim else a.copy()


def _transpose_grad(g, out, a, dim0=None, dim1=None):
    # derivatives.yaml: grad.transpose(dim0, dim1)
    d0, d1 = _transpose_dims(np.ndim(a), dim0, dim1)
    return call("transpose", g, dim0=d0, dim1=d1) if np.ndim(a) else g


def _expand(a, size=None):
    a = np.asarray(a)
    return np.broadcast_to(a, _expand_shape(a.shape, size)).copy()


def _expand_grad(g, out, a, size=None):
    # derivatives.yaml: at::sum_to(grad, self.sizes()), the adjoint of broadcasting
    return unbroadcast(g, np.shape(a))


def _repeat(a, repeats=None):
    a = np.asarray(a)
    _repeat_shape(a.shape, repeats)
    return np.tile(a, repeats) if repeats else a.copy()


def _repeat_grad(g, out, a, repeats=None):
    """derivatives.yaml repeat_backward: sum the leading copies away one dim at a time, then
    split each repeated dim into (copies, size) and sum the copies, as one sum over dims."""
    shape = tuple(np.shape(a))
    if 0 in repeats:
        return np.zeros(shape)
    extra = len(repeats) - len(shape)
    for _ in range(extra):
        g = call("sum", g, dim=0)
    split: list[int] = []
    copies: list[int] = []
    for n, r in zip(shape, repeats[extra:]):
        if r != 1:
            split.append(r)
            copies.append(len(split) - 1)
        split.append(n)
    if not copies:
        return g
    return call("sum", call("reshape", g, shape=tuple(split)), dim=tuple(copies))


# ---------------------------------------------------------------- grad_fn names


def _squeeze_grad_fn(kinds, shapes, attrs) -> str:
    return "SqueezeBackward0" if attrs.get("dim") is None else "SqueezeBackward1"


# ---------------------------------------------------------------- symbolic forms
# Elementwise notation (a name stands for any one element): ops that only relabel elements
# leave an element's form as it is; transposes are named, as t() is; copies sum back.


def _same(sp, a, shapes=((),), **attrs):
    return a


def _sym_permute(sp, a, shapes=((),), dims=None):
    return sp.Function("permute")(a, *_permutation(len(shapes[0]), dims)) if shapes[0] else a


def _sym_transpose(sp, a, shapes=((),), dim0=None, dim1=None):
    if not shapes[0]:
        return a
    return sp.Function("transpose")(a, *_transpose_dims(len(shapes[0]), dim0, dim1))


# ---------------------------------------------------------------- written forms


SHAPE_PARAM = Param("shape", None, "ints")
SIZE_PARAM = Param("size", None, "ints")
_COMMON = {"saves_tensors": False, "elementwise": False}

# ---------------------------------------------------------------- F.pad, mode='constant'


def _pad_pairs(shape: Shape, pad) -> list[tuple[int, int, int]]:
    """(dim, before, after) for each padded dim: F.pad's pairs run from the last dim backwards."""
    pad = tuple(pad or ())
    if len(pad) % 2:
        raise ShapeError("Padding length must be divisible by 2")
    if len(pad) > 2 * len(shape):
        raise ShapeError(
            "Padding length should be less than or equal to two times the input dimension but got "
            f"padding length {len(pad)} and input of dimension {len(shape)}"
        )
    return [(len(shape) - 1 - k, pad[2 * k], pad[2 * k + 1]) for k in range(len(pad) // 2)]


def _pad_shape(a: Shape, pad=None, mode: str = "constant", value=None) -> Shape:
    if mode != "constant":
        raise ShapeError(
            f"F.pad with mode='{mode}' is not supported by gradcli (its backward is another kernel); "
            "mode='constant' is"
        )
    shape = list(a)
    for dim, before, after in _pad_pairs(a, pad):
        shape[dim] += before + after
        if shape[dim] < 0:
            raise ShapeError("narrow(): length must be non-negative.")
    return tuple(shape)


def _pad(a, pad=None, mode: str = "constant", value=None):
    """torch.constant_pad_nd: `value` around x, or x cut where a pad is negative."""
    a = np.asarray(a)
    shape = _pad_shape(a.shape, pad, mode, value)
    fill = 0 if value is None else value
    out = np.full(shape, np.array(fill).astype(a.dtype) if a.dtype.kind in "iub" else fill, dtype=a.dtype)
    source: list[slice] = [slice(None)] * a.ndim
    target: list[slice] = [slice(None)] * a.ndim
    for dim, before, after in _pad_pairs(a.shape, pad):
        source[dim] = slice(max(-before, 0), a.shape[dim] - max(-after, 0))
        target[dim] = slice(max(before, 0), shape[dim] - max(after, 0))
    out[tuple(target)] = a[tuple(source)]
    return out


def _pad_grad(g, out, a, pad=None, mode: str = "constant", value=None):
    # derivatives.yaml: constant_pad_nd_backward(grad, pad), which is constant_pad_nd(grad, -pad)
    return call("pad", g, pad=tuple(-p for p in pad or ()))


OPS: tuple[Op, ...] = (
    Op(
        "reshape",
        "reshape(x) or x.reshape(2, -1), torch.reshape(x, (2, -1))",
        forward=_reshape,
        vjp=(_back_to_operand,),
        sympy=_same,
        grad_fn="ViewBackward0",
        torch="torch.reshape",
        domain="a shape with as many elements (one -1 is inferred)",
        params=(SHAPE_PARAM,),
        infer_shape=_reshape_shape,
        viewing="reshape",
        **_COMMON,
        batching=Batching("relabel"),
    ),
    Op(
        "view",
        "x.view() or x.view(2, -1)",
        forward=_view,
        vjp=(_back_to_operand,),
        sympy=_same,
        grad_fn="ViewBackward0",
        torch="torch.Tensor.view",
        domain="a shape with as many elements (one -1 is inferred)",
        function=False,
        params=(SIZE_PARAM,),
        infer_shape=_view_shape,
        viewing="view",
        **_COMMON,
        batching=Batching("relabel"),
    ),
    Op(
        "flatten",
        "flatten(x) or x.flatten(start_dim=0, end_dim=-1)",
        forward=_flatten,
        vjp=(_back_to_operand,),
        sympy=_same,
        grad_fn="ViewBackward0",  # torch.flatten is a reshape
        torch="torch.flatten",
        params=(Param("start_dim", 0, "int"), Param("end_dim", -1, "int")),
        infer_shape=_flatten_shape,
        viewing="reshape",
        **_COMMON,
        batching=Batching("relabel"),
    ),
    Op(
        "squeeze",
        "squeeze(x) or x.squeeze(dim)",
        forward=_squeeze,
        vjp=(_squeeze_grad,),
        sympy=_same,
        grad_fn="SqueezeBackward0",
        torch="torch.squeeze",
        params=(Param("dim", None, "dim"),),
        infer_shape=_squeeze_shape,
        pick_grad_fn=_squeeze_grad_fn,
        **_COMMON,
        batching=Batching("relabel"),
    ),
    Op(
        "unsqueeze",
        "unsqueeze(x) or x.unsqueeze(dim)",
        forward=_unsqueeze,
        vjp=(_unsqueeze_grad,),
        sympy=_same,
        grad_fn="UnsqueezeBackward0",
        torch="torch.unsqueeze",
        params=(Param("dim", None, "dim"),),
        infer_shape=_unsqueeze_shape,
        **_COMMON,
        batching=Batching("relabel"),
    ),
    Op(
        "permute",
        "permute(x) or x.permute(2, 0, 1), torch.permute(x, (2, 0, 1))",
        forward=_permute,
        vjp=(_permute_grad,),
        sympy=_sym_permute,
        grad_fn="PermuteBackward0",
        torch="torch.permute",
        params=(Param("dims", None, "ints"),),
        infer_shape=_permute_shape,
        **_COMMON,
        batching=Batching("permute"),
    ),
    Op(
        "transpose",
        "transpose(x) or x.transpose(dim0, dim1)",
        forward=_transpose,
        vjp=(_transpose_grad,),
        sympy=_sym_transpose,
        grad_fn="TransposeBackward0",
        torch="torch.transpose",
        params=(Param("dim0", None, "dim"), Param("dim1", None, "dim")),
        infer_shape=_transpose_shape,
        **_COMMON,
        batching=Batching("along", dims=(("dim0", None), ("dim1", None))),
    ),
    Op(
        "expand",
        "x.expand() or x.expand(4, -1, 3)",
        forward=_expand,
        vjp=(_expand_grad,),
        sympy=_same,
        grad_fn="ExpandBackward0",
        torch="torch.Tensor.expand",
        domain="sizes that match x's, or stretch its size-1 dims, or add dims in front",
        function=False,
        params=(SIZE_PARAM,),
        infer_shape=_expand_shape,
        **_COMMON,
        batching=Batching("expand"),
    ),
    Op(
        "repeat",
        "x.repeat() or x.repeat(2, 1)",
        forward=_repeat,
        vjp=(_repeat_grad,),
        sympy=_same,
        grad_fn="RepeatBackward0",
        torch="torch.Tensor.repeat",
        domain="at least as many repeats as x has dims",
        function=False,
        params=(Param("repeats", None, "ints"),),
        infer_shape=_repeat_shape,
        **_COMMON,
        batching=Batching("repeat"),
    ),
    Op(
        "pad",
        "F.pad(x) or F.pad(x, (0, 2, 1, 0), value=-1.0)",
        forward=_pad,
        vjp=(_pad_grad,),
        sympy=lambda sp, a, shapes=((),), **attrs: _fn(sp, "pad")(a),
        grad_fn="ConstantPadNdBackward0",
        torch="torch.nn.functional.pad",
        domain="mode='constant' (pairs from the last dim; a negative pad cuts)",
        method=False,
        params=(
            Param("pad", None, "ints"),
            Param(
                "mode", "constant", "choice", ("constant", "reflect", "replicate", "circular"),
                refusal="Unrecognised padding mode {value}",
            ),
            Param("value", None, "number"),
        ),
        infer_shape=_pad_shape,
        aliases=("constant_pad_nd",),
        written=lambda texts, attrs: f"F.pad({texts[0]}"
        + ("" if attrs.get("pad") is None else f", {tuple(attrs['pad'])}")
        + ("" if attrs.get("value") is None else f", value={attrs['value']!r}")
        + ")",
        **_COMMON,
        batching=Batching("pad"),
    ),
    Op(
        "mT",
        "x.mT",
        forward=lambda a: np.swapaxes(a, -2, -1).copy(),
        vjp=(lambda g, out, a: call("transpose", g, dim0=-2, dim1=-1),),
        sympy=lambda sp, a, shapes=((),): _sym_transpose(sp, a, shapes, -2, -1),
        grad_fn="TransposeBackward0",  # x.mT is x.transpose(-2, -1)
        torch="Tensor.mT",
        domain="tensors with >= 2 dimensions",
        function=False,
        method=False,
        infer_shape=_mT_shape,
        written=lambda operands, attrs: f"{operands[0]}.mT",
        **_COMMON,
        batching=Batching("along"),
    ),
    Op(
        "_unsafe_view",
        "torch.ops.aten._unsafe_view(x, [2, 3]): a view of a fresh result (matmul, reshape of a copy)",
        forward=_view,
        vjp=(_back_to_operand,),
        sympy=_same,
        grad_fn="UnsafeViewBackward0",
        torch="torch.ops.aten._unsafe_view",
        domain="a shape with as many elements (one -1 is inferred)",
        function=False,
        method=False,
        params=(SIZE_PARAM,),
        infer_shape=_view_shape,
        written=lambda operands, attrs: (
            f"torch.ops.aten._unsafe_view({operands[0]}"
            + ("" if attrs.get("size") is None else f", {_listed(attrs['size'])}")
            + ")"
        ),
        **_COMMON,
        batching=Batching("relabel"),
    ),
    Op(
        "clone",
        "clone(x) or x.clone()",
        forward=lambda a: np.array(a, copy=True),
        vjp=(lambda g, out, a: g,),
        sympy=lambda sp, a: a,
        text="{0}",
        grad_fn="CloneBackward0",
        torch="torch.clone",
        saves_tensors=False,
        batching=Batching("copy"),
    ),
)


# x.contiguous() of a contiguous tensor is x itself in torch: no node; of another, a copy
# (CloneBackward0). `gradcli run` passes its tensors' NumPy strides.
def _contiguous(apply, x, shapes=((),), dtypes=(), strides=(None,)):
    if strides and strides[0] is not None and not is_contiguous(shapes[0], strides[0]):
        return apply("clone", x)
    return x


def _type_name(value) -> str:
    """What torch's argument parser calls a value it was given, in its errors."""
    if isinstance(value, tuple):
        return "tuple of ints"
    return {bool: "bool", int: "int", float: "float", type(None): "NoneType"}.get(type(value), "Tensor")


def _plain_ints(call: str, **given) -> None:
    """A composite's int arguments must have been written as integer literals: an expression
    of sizes (x.shape[0] - 1) reaches a composite unsettled, which gradcli cannot take yet."""
    for name, value in given.items():
        items = value if isinstance(value, tuple) else (value,)
        if not all(isinstance(item, int) or item is None for item in items):
            raise ShapeError(f"{call}(): gradcli takes {name} as integer literals here, not an expression")


def _movedim(apply, x, source=None, destination=None, shapes=((),), dtypes=(), strides=(None,)):
    """torch.movedim: the permutation that puts dims `source` at `destination`, the others in
    order (torch records PermuteBackward0, even when nothing moves)."""
    if source is None or destination is None:  # x.movedim(), x.movedim(0): torch's TypeError
        got = ", ".join(_type_name(v) for v in (source, destination) if v is not None)
        raise ShapeError(
            f"movedim() received an invalid combination of arguments - got ({got}), but expected one of: "
            "(int source, int destination), (tuple of ints source, tuple of ints destination)"
        )
    _plain_ints("movedim", source=source, destination=destination)
    ndim = len(shapes[0])
    source = (source,) if isinstance(source, int) else tuple(source)
    destination = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(source) != len(destination):
        raise ShapeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should contain "
            f"the same number of dims as destination ({list(destination)} dims)"
        )
    source = tuple(_normalise_dim(d, ndim) for d in source)
    destination = tuple(_normalise_dim(d, ndim) for d in destination)
    if not ndim:  # a 0-d tensor: dims -1 and 0 both name it, and nothing moves
        return apply("permute", x, dims=())
    for name, dims in (("source", source), ("destination", destination)):
        if len(set(dims)) != len(dims):
            raise ShapeError(f"movedim: repeated dim in `{name}` ({list(dims)})")
    order = [None] * ndim
    for s_dim, d_dim in zip(source, destination, strict=True):
        order[d_dim] = s_dim
    rest = iter(d for d in range(ndim) if d not in source)
    dims = tuple(d if d is not None else next(rest) for d in order)
    return apply("permute", x, dims=dims)


def _repeat_interleave(apply, x, repeats=None, dim=None, output_size=None, shapes=((),), dtypes=(), strides=(None,)):
    """x.repeat_interleave(r, dim) with a whole number r, as ATen writes it: (flatten when no
    dim,) unsqueeze after dim, expand there to r, clone, view: ViewBackward0, CloneBackward0,
    ExpandBackward0, UnsqueezeBackward0."""
    if not isinstance(repeats, int) or isinstance(repeats, bool):
        raise ShapeError("gradcli's repeat_interleave takes a whole number of repeats (a tensor of counts is not supported)")
    _plain_ints("repeat_interleave", dim=dim, output_size=output_size)
    if repeats < 0:
        raise ShapeError("Repeats must be non-negative")
    shape = tuple(shapes[0])
    if dim is None:
        if len(shape) != 1:
            x = apply("reshape", x, shape=(-1,))
        shape, dim = (math.prod(shape),), 0
    dim = _normalise_dim(dim, len(shape))
    if not shape:  # a 0-d tensor with a dim: torch views it as one element
        x, shape = apply("reshape", x, shape=(1,)), (1,)
    spread = apply("unsqueeze", x, dim=dim + 1)
    wide = shape[: dim + 1] + (repeats,) + shape[dim + 1 :]
    copied = apply("clone", apply("expand", spread, size=wide))
    return apply("view", copied, size=shape[:dim] + (shape[dim] * repeats,) + shape[dim + 1 :])


def _narrow(apply, x, dim=None, start=None, length=None, shapes=((),), dtypes=(), strides=(None,)):
    """x.narrow(dim, start, length) is the slice x[..., start:start + length] along dim:
    SliceBackward0, with narrow's own checks."""
    if dim is None or start is None or length is None:
        raise ShapeError("narrow() missing required arguments: dim, start and length")
    _plain_ints("narrow", dim=dim, start=start, length=length)
    shape = tuple(shapes[0])
    if not shape:
        raise ShapeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _normalise_dim(dim, len(shape))
    size = shape[d]
    if not -size <= start <= size:
        raise IndexOutOfRange(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start = start + size if start < 0 else start
    if length < 0:
        raise ShapeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise ShapeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return apply("slice", x, dim=d, start=start, end=start + length, step=1)


COMPOSITES: tuple[Composite, ...] = (
    Composite(
        "narrow",
        arity=1,
        params=(Param("dim", None, "dim"), Param("start", None, "int"), Param("length", None, "int")),
        build=_narrow,
        torch="torch.narrow",
        derivative="x[..., start:start + length] along dim: SliceBackward0",
        shaped=True,
    ),
    Composite(
        "repeat_interleave",
        arity=1,
        params=(Param("repeats", None, "int"), Param("dim", None, "dim"), Param("output_size", None, "int")),
        build=_repeat_interleave,
        torch="torch.repeat_interleave",
        derivative=(
            "x.unsqueeze(dim + 1).expand(..., r, ...).clone().view(...) (flattened first without a dim): "
            "ViewBackward0, CloneBackward0, ExpandBackward0, UnsqueezeBackward0"
        ),
        shaped=True,
    ),
    Composite(
        "movedim",
        arity=1,
        params=(Param("source", None, "dims"), Param("destination", None, "dims")),
        build=_movedim,
        torch="torch.movedim",
        derivative="x.permute(...) putting source dims at destination: PermuteBackward0",
        shaped=True,
    ),
    Composite(
        "contiguous",
        arity=1,
        params=(),
        build=_contiguous,
        torch="torch.Tensor.contiguous",
        derivative="x itself (no node) when x is contiguous, else a copy: CloneBackward0",
        shaped=True,
    ),
)

# NumPy's names for the same ops; np.transpose(x, axes) is permute (without axes, all dims reversed).
TORCH_ALIASES: dict[str, Spelling] = {"moveaxis": Spelling("movedim")}
NUMPY_ALIASES: dict[str, Spelling] = {
    "moveaxis": Spelling("movedim"),
    "transpose": Spelling("permute"),
    "expand_dims": Spelling("unsqueeze", renames=(("axis", "dim"),)),
    # np.repeat(a, r, axis) repeats each element, as torch.repeat_interleave; Tensor.repeat tiles
    "repeat": Spelling("repeat_interleave"),
}

ATEN_MODULES = {"torch.ops.aten": {"_unsafe_view": Spelling("_unsafe_view")}}
