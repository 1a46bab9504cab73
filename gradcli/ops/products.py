"""Products as torch records them for each rank: `v @ W` with a 1-D `v` is three nodes.

torch's matmul of a vector and a matrix unsqueezes the vector to a row, multiplies two
matrices and squeezes the row away: UnsqueezeBackward0, MmBackward0, SqueezeBackward4
(the squeeze overload torch's C++ calls, which no Python spelling records). The graph
asks REWRITES before it records a matmul node, so the node table and `grad_fn.next_functions`
agree; a matrix times a vector stays one MvBackward0 node, as in torch.
"""

from __future__ import annotations

import numpy as np

from .core import Op, Shape, call


def _vector_matrix(apply, a, b, shapes=(), **_):
    """v @ W: unsqueeze, mm, squeeze; None (no rewrite) for the other ranks."""
    if len(shapes) != 2 or shapes[0] is None or shapes[1] is None:
        return None
    if (len(shapes[0]), len(shapes[1])) != (1, 2):
        return None
    row = apply("unsqueeze", a, dim=0)
    return apply("squeeze_dims", apply("matmul", row, b), dims=(0,))


OPS: tuple[Op, ...] = ()  # its records are the registry's own (unsqueeze, matmul) and one kernel
REWRITES = {"matmul": _vector_matrix}


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
