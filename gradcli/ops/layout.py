"""Layout: transposes."""

from __future__ import annotations

import numpy as np

from .core import (
    Op,
    _sym_transpose,
    _transpose_shape,
    call,
)

OPS: tuple[Op, ...] = (
    Op(
        "t",
        "t(A) or A.t()",
        forward=lambda a: np.transpose(a),
        vjp=(lambda g, out, a: np.transpose(g),),
        sympy=_sym_transpose,
        grad_fn="TBackward0",
        torch="torch.t",
        domain="tensors with <= 2 dimensions",
        saves_tensors=False,
        elementwise=False,
        infer_shape=_transpose_shape,
    ),
    Op(
        "T",
        "A.T",
        forward=lambda a: np.transpose(a),
        vjp=(lambda g, out, a: call("permute", g, dims=(1, 0)) if np.ndim(g) == 2 else g,),
        sympy=_sym_transpose,
        grad_fn="PermuteBackward0",
        torch="Tensor.T",
        domain="tensors with <= 2 dimensions",
        saves_tensors=False,
        elementwise=False,
        function=False,
        method=False,
        infer_shape=_transpose_shape,
    ),
)
