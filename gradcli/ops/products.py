"""Products as torch records them for each rank: `v @ W` with a 1-D `v` is three nodes.

torch's matmul of a vector and a matrix unsqueezes the vector to a row, multiplies two
matrices and squeezes the row away: UnsqueezeBackward0, MmBackward0, SqueezeBackward4
(the squeeze overload torch's C++ calls, which no Python spelling records). The graph
asks REWRITES before it records a matmul node, so the node table and `grad_fn.next_functions`
agree; a matrix times a vector stays one MvBackward0 node, as in torch.

Batched products follow at::matmul step for step: `A @ W` of a batch and a matrix folds the
batch into the rows of one mm (reshape, MmBackward0, UnsafeViewBackward0; `W @ A` the same
transposed, then made contiguous); otherwise the batches broadcast, each side expands and
reshapes to one batch dim, and BmmBackward0 multiplies (`torch.bmm(A, B)` is that node
alone). Whether a view or a copy (ViewBackward0, ReshapeAliasBackward0, CloneBackward0 and
UnsafeViewBackward0) comes from the reshape record, which knows torch's strides.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ShapeError
from . import strides as layout
from .core import Batching, Composite, Op, Shape, Spelling, broadcast_shapes, call


def _matmul_nodes(apply, a, b, shapes=(), strides=(), grads=(), **_):
    """The nodes at::matmul (_matmul_impl, torch 2.13) records for these ranks; None (one
    matmul node: mm, mv, dot) for 1-D and 2-D operands.

    `strides` (in elements, None for contiguous) and `grads` (whether each operand requires
    grad) decide, as in torch, whether a batch folds into the rows of one mm."""
    if len(shapes) != 2 or shapes[0] is None or shapes[1] is None:
        return None
    sa, sb = tuple(shapes[0]), tuple(shapes[1])
    if not sa or not sb:
        return None  # matmul's own shape check: both arguments need to be at least 1D
    if (len(sa), len(sb)) == (1, 2):  # v @ W: unsqueeze, mm, squeeze
        row = apply("unsqueeze", a, dim=0)
        return apply("squeeze_dims", apply("matmul", row, b), dims=(0,))
    if len(sa) <= 2 and len(sb) <= 2:
        return None
    given = tuple(strides) if strides else (None, None)
    layout_a = tuple(given[0]) if given[0] is not None else layout.contiguous(sa)
    layout_b = tuple(given[1]) if given[1] is not None else layout.contiguous(sb)
    grad_a, grad_b = tuple(grads) if grads else (True, True)
    if _should_fold(sa, sb, layout_a, layout_b, grad_a, grad_b):
        return _folded(apply, a, b, sa, sb)
    if len(sa) == 3 and len(sb) == 3 and sa[0] != sb[0]:  # a batch of one: squeeze it, fold
        if sa[0] == 1 and grad_a:
            return apply("matmul", apply("squeeze", a, dim=0), b)
        if sb[0] == 1 and grad_b:
            return apply("matmul", a, apply("squeeze", b, dim=0))
    return _batched(apply, a, b, sa, sb)


def _transposed_shape(shape: Shape) -> Shape:
    return (*shape[:-2], shape[-1], shape[-2])


def _should_fold(sa: Shape, sb: Shape, layout_a: Shape, layout_b: Shape, grad_a: bool, grad_b: bool) -> bool:
    """at::matmul's should_fold: the larger operand's batch folds into rows of one mm or mv."""
    larger_first = len(sa) >= len(sb)
    shape1 = sa if larger_first else _transposed_shape(sb)
    layout1 = layout_a if larger_first else _transposed_shape(layout_b)
    if not (len(shape1) >= 3 and (len(sb) if larger_first else len(sa)) <= 2):
        return False
    if grad_b if larger_first else grad_a:
        return True
    if len(sa) == 2:
        return False
    if math.prod(shape1) == 0:
        return True
    return all(layout1[i] == layout1[i + 1] * shape1[i + 1] for i in range(len(shape1) - 2))


def _folded(apply, a, b, sa: Shape, sb: Shape):
    transpose = len(sb) > len(sa)  # W @ A: (A^T @ W^T)^T, made contiguous
    t1, s1 = (apply("transpose", b, dim0=-2, dim1=-1), _transposed_shape(sb)) if transpose else (a, sa)
    if transpose:
        t2, s2 = (apply("t", a), (sa[1], sa[0])) if len(sa) == 2 else (a, sa)
    else:
        t2, s2 = b, sb
    output_shape = s1[:-1] + ((s2[1],) if len(s2) == 2 else ())
    rows = apply("reshape", t1, shape=(math.prod(s1[:-1]), s1[-1]))
    output = apply("_unsafe_view", apply("matmul", rows, t2), size=output_shape)
    if transpose and len(s2) == 2:
        return apply("clone", apply("transpose", output, dim0=-2, dim1=-1))
    return output


def _batched(apply, a, b, sa: Shape, sb: Shape):
    """Broadcast the batches, expand, reshape to one batch dim, bmm, _unsafe_view."""
    n = sa[-2] if len(sa) > 1 else 1
    m1 = sa[-1]
    m2, p = (sb[-2], sb[-1]) if len(sb) > 1 else (sb[0], 1)
    batch = broadcast_shapes(sa[: max(len(sa) - 2, 0)], sb[: max(len(sb) - 2, 0)])
    count = math.prod(batch)
    left = apply("reshape", apply("expand", a, size=(*batch, n, m1)), shape=(count, n, m1))
    if len(sb) == 1:
        right = apply("unsqueeze", apply("reshape", apply("expand", b, size=(*batch, m2)), shape=(count, m2)), dim=2)
    else:
        right = apply("reshape", apply("expand", b, size=(*batch, m2, p)), shape=(count, m2, p))
    output_shape = (*batch, *((n,) if len(sa) > 1 else ()), *((p,) if len(sb) > 1 else ()))
    product = apply("bmm", left, right)
    if len(sb) == 1:
        product = apply("squeeze", product, dim=-1)
    return apply("_unsafe_view", product, size=output_shape)


def _bmm_shape(a: Shape, b: Shape) -> Shape:
    if len(a) != 3:
        raise ShapeError("batch1 must be a 3D tensor")
    if len(b) != 3:
        raise ShapeError("batch2 must be a 3D tensor")
    if tuple(b[:2]) != (a[0], a[2]):
        raise ShapeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{a[0]}, {a[2]}] "
            f"but got: [{b[0]}, {b[1]}]."
        )
    return (a[0], a[1], b[2])


def _swapped(x):
    return call("transpose", x, dim0=1, dim1=2)


OPS: tuple[Op, ...] = (
    Op(
        "bmm",
        "torch.bmm(A, B) or A.bmm(B): a batch of matrix products, A (b, n, m) and B (b, m, p)",
        forward=lambda a, b: np.matmul(a, b),
        # derivatives.yaml: grad.bmm(mat2.transpose(1, 2)), self.transpose(1, 2).bmm(grad)
        vjp=(
            lambda g, out, a, b: call("bmm", g, _swapped(b)),
            lambda g, out, a, b: call("bmm", _swapped(a), g),
        ),
        sympy=lambda sp, a, b, shapes=(): sp.Function("bmm")(a, b),
        grad_fn="BmmBackward0",
        torch="torch.bmm",
        elementwise=False,
        infer_shape=_bmm_shape,
        written=lambda texts, attrs: f"torch.bmm({texts[0]}, {texts[1]})",
        batching=Batching("bmm"),
    ),
)
REWRITES = {"matmul": _matmul_nodes}


def _squeeze_shape(a: Shape, dims: tuple[int, ...] = (0,)) -> Shape:
    return tuple(n for i, n in enumerate(a) if i not in dims)


# Not part of the language: only a rewrite makes it (Python's x.squeeze((0,)) is SqueezeBackward2).
INTERNAL: tuple[Op, ...] = (
    Op(
        "squeeze_dims",
        "(internal) the squeeze torch's matmul records",
        forward=lambda a, dims=(0,): np.squeeze(a, axis=dims),
        # derivatives.yaml, squeeze.dims: unsqueeze_multiple(grad, dim, self.dim())
        vjp=(lambda g, out, a, dims=(0,): call("unsqueeze", g, dim=dims[0]),),
        sympy=lambda sp, a, shapes=(), dims=(0,): a,
        grad_fn="SqueezeBackward4",
        torch="torch.squeeze",
        saves_tensors=False,
        elementwise=False,
        function=False,
        method=False,
        infer_shape=_squeeze_shape,
        written=lambda texts, attrs: f"{texts[0]}.squeeze({attrs['dims'][0]})",
    ),
)


def _outer(apply, a, b, shapes=((), ()), **_):
    """torch.outer(a, b) is `a.reshape(-1, 1) * b` in ATen: ViewBackward0, then MulBackward0."""
    for shape, name in zip(shapes, ("self", "vec2")):
        if shape is not None and len(shape) != 1:
            raise ShapeError(f"outer: Expected 1-D argument {name}, but got {len(shape)}-D")
    return apply("mul", apply("reshape", a, shape=(-1, 1)), b)


def _numpy_dot(apply, a, b, shapes=((), ()), **_):
    """np.dot(a, b) is matmul for 1-D and 2-D arrays. NumPy's N-D dot pairs every other axis of
    a with every other axis of b, which is not matmul's batching: refused, not silently changed."""
    for shape in shapes:
        if shape is not None and len(shape) > 2:
            raise ShapeError(
                f"np.dot of a {len(shape)}-D array is not matmul (NumPy pairs every other axis of both); "
                "gradcli's np.dot takes 1-D and 2-D arrays (write torch.matmul(a, b) for batches)"
            )
    return apply("matmul", a, b)


COMPOSITES: tuple[Composite, ...] = (
    Composite(
        "np_dot",
        2,
        (),
        _numpy_dot,
        torch="torch.matmul",
        derivative="np.dot(a, b) of 1-D and 2-D arrays is a @ b: DotBackward0, MvBackward0 or MmBackward0",
        shaped=True,
    ),
    Composite(
        "outer",
        2,
        (),
        _outer,
        torch="torch.outer",
        derivative="a.reshape(-1, 1) * b: ViewBackward0, MulBackward0",
        shaped=True,
    ),
)
TORCH_ALIASES = {"ger": Spelling("outer")}
NUMPY_ALIASES = {"dot": Spelling("np_dot")}
