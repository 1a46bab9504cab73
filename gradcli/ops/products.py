"""Products as torch records them for each rank: `v @ W` with a 1-D `v` is three nodes.

torch's matmul of a vector and a matrix unsqueezes the vector to a row, multiplies two
matrices and squeezes the row away: UnsqueezeBackward0, MmBackward0, SqueezeBackward4
(the squeeze overload torch's C++ calls, which no Python spelling records). The graph
asks REWRITES before it records a matmul node, so the node table and `grad_fn.next_functions`
agree; a matrix times a vector stays one MvBackward0 node, as in torch.

Batched products: `torch.bmm(A, B)` is BmmBackward0. `A @ W` of a contiguous 3-D `A` and a
matrix folds A's batch into rows (ViewBackward0, MmBackward0, UnsafeViewBackward0), and
`A @ B` of two contiguous 3-D tensors with one batch size expands, views and multiplies
(ExpandBackward0, ViewBackward0, BmmBackward0, UnsafeViewBackward0), as at::matmul does.
Other batched shapes (broadcast batches, 4-D) are not modelled.
"""

from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from . import strides as layout
from .core import Op, Shape, call


def _contiguous(shape: Shape, given: Shape | None) -> bool:
    return given is None or tuple(given) == tuple(layout.contiguous(shape))


def _matmul_nodes(apply, a, b, shapes=(), strides=(), **_):
    """The nodes at::matmul records for these ranks; None (one matmul node) for 1-D and 2-D."""
    if len(shapes) != 2 or shapes[0] is None or shapes[1] is None:
        return None
    (sa, sb), ranks = shapes, (len(shapes[0]), len(shapes[1]))
    given = tuple(strides) + (None, None) if strides else (None, None)
    if ranks == (1, 2):  # v @ W: unsqueeze, mm, squeeze
        row = apply("unsqueeze", a, dim=0)
        return apply("squeeze_dims", apply("matmul", row, b), dims=(0,))
    if ranks == (3, 2) and _contiguous(sa, given[0]) and sa[2] == sb[0]:  # fold the batch into rows
        rows = apply("view", a, size=(sa[0] * sa[1], sa[2]))
        return apply("_unsafe_view", apply("matmul", rows, b), size=(sa[0], sa[1], sb[1]))
    if ranks == (3, 3) and sa[0] == sb[0] and sa[2] == sb[1] and all(_contiguous(s, g) for s, g in zip(shapes, given)):
        left = apply("view", apply("expand", a, size=tuple(sa)), size=tuple(sa))
        right = apply("view", apply("expand", b, size=tuple(sb)), size=tuple(sb))
        return apply("_unsafe_view", apply("bmm", left, right), size=(sa[0], sa[1], sb[2]))
    return None


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
        derivative="batched (a@b): grads g@b^T and a^T@g, batch by batch",
        elementwise=False,
        infer_shape=_bmm_shape,
        sym_vjp=(
            lambda sp, g, a, b, shapes=(): sp.Function("bmm")(g, sp.Function("mT")(b)),
            lambda sp, g, a, b, shapes=(): sp.Function("bmm")(sp.Function("mT")(a), g),
        ),
        step=("bmm({g}, {1}.transpose(1, 2))", "bmm({0}.transpose(1, 2), {g})"),
        written=lambda texts, attrs: f"torch.bmm({texts[0]}, {texts[1]})",
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
        derivative="g unsqueezed back",
        saves_tensors=False,
        elementwise=False,
        function=False,
        method=False,
        infer_shape=_squeeze_shape,
        sym_vjp=(lambda sp, g, a, shapes=(), dims=(0,): g,),  # shapes are symbolic scalars there
        step=(lambda shapes, attrs: f"{{g}}.unsqueeze({attrs.get('dims', (0,))[0]})",),
        written=lambda texts, attrs: f"{texts[0]}.squeeze({attrs['dims'][0]})",
    ),
)
