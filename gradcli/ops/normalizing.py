"""`F.normalize` and `F.cosine_similarity` as torch records them, and the clamps they use.

torch.nn.functional.normalize is Python: `input / input.norm(p, dim, keepdim=True)
.clamp_min(eps).expand_as(input)`, so torch 2.13 records LinalgVectorNormBackward0,
ClampMinBackward0, ExpandBackward0 and DivBackward0, and gradcli records the same nodes.
`x.clamp_min(m)` is a record of its own (ClampMinBackward0, not clamp's ClampBackward1);
its gradient passes where x >= min (the bound included, nan gets 0), as derivatives.yaml's
`where(self >= min, grad, 0)`; clamp_max mirrors it.

cosine_similarity is ATen's (Distance.cpp): both norms are cloned and, under no_grad,
clamped to eps in place, then `((x1 / n1) * (x2 / n2)).sum(dim)`. The clamp records nothing,
so its node is the clone's: `_clone_clamped`, CloneBackward0, whose value is clamped and
whose gradient passes unchanged, as torch's does.
"""

from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .core import NUMBER, Composite, Op, Param, Shape, broadcast_shapes


def _bound_shape(a: Shape, bound: float | None = None) -> Shape:
    if bound is None:
        raise ShapeError("a number bound is required, as in x.clamp_min(0.5)")
    return tuple(a)


def _one_sided(name: str, keep, ufunc, symbol: str, grad_fn: str) -> Op:
    param = name.rsplit("_", 1)[-1]  # min or max

    def forward(a, **attrs):
        return ufunc(a, attrs[param])  # nan stays nan

    def vjp(g, out, a, **attrs):
        return np.where(keep(a, attrs[param]), g, 0.0)

    def form(sp, a, shapes=((),), **attrs):
        return (sp.Max if param == "min" else sp.Min)(a, sp.Float(attrs[param]))

    return Op(
        name,
        f"x.{name}({param}) or torch.{name}(x, {param})",
        forward=forward,
        vjp=(vjp,),
        sympy=form,
        grad_fn=grad_fn,
        torch=f"torch.{name}",
        saves_tensors=True,
        elementwise=False,
        params=(Param(param, None, "number"),),
        infer_shape=lambda a, **attrs: _bound_shape(a, attrs.get(param)),
        written=lambda texts, attrs: f"{texts[0]}.{name}({attrs[param]!r})",
    )


OPS: tuple[Op, ...] = (
    _one_sided("clamp_min", np.greater_equal, np.maximum, ">=", "ClampMinBackward0"),
    _one_sided("clamp_max", np.less_equal, np.minimum, "<=", "ClampMaxBackward0"),
)

# cosine_similarity's norm: cloned, then clamped in place under no_grad (no node of its own)
INTERNAL: tuple[Op, ...] = (
    Op(
        "_clone_clamped",
        "(internal) n.clone() then, under no_grad, n.clamp_min_(eps)",
        forward=lambda a, min=0.0: np.maximum(a, min),  # noqa: A006
        vjp=(lambda g, out, a, min=0.0: g,),  # noqa: A006
        sympy=lambda sp, a, shapes=((),), min=0.0: sp.Max(a, sp.Float(min)),  # noqa: A006
        grad_fn="CloneBackward0",
        torch="torch.clone",
        saves_tensors=False,
        elementwise=False,
        function=False,
        method=False,
        params=(Param("min", 0.0, "number"),),
        infer_shape=lambda a, **attrs: tuple(a),
        written=lambda texts, attrs: f"{texts[0]}.clone().clamp_min_({attrs.get('min', 0.0)!r})",
    ),
)


def _normalize(apply, x, p=2.0, dim=1, eps=1e-12, shapes=(), **_):
    norm = apply("norm", x, p=p, dim=(dim,), keepdim=True)
    return apply("div", x, apply("expand", apply("clamp_min", norm, min=eps), size=tuple(shapes[0])))


def _python_type(number) -> str:
    """int or float, as Python typed the literal a program wrote (`0`, `1.5`, `10**30`, `inf`)."""
    value = getattr(number, "value", number)
    text = getattr(getattr(number, "expr", None), "text", "")
    integral = isinstance(value, int) or (float(value).is_integer() and not any(c in text for c in ".eEin"))
    return "int" if integral else "float"


def _cosine_similarity(apply, x1, x2, dim=1, eps=1e-8, shapes=((), ()), dtypes=None, **_):
    for position, (name, x, kind) in enumerate(zip(("x1", "x2"), (x1, x2), dtypes or ()), start=1):
        if kind == NUMBER:  # torch's Python binding takes tensors only: a number is its TypeError
            raise ShapeError(
                f"cosine_similarity(): argument '{name}' (position {position}) must be Tensor, not {_python_type(x)}"
            )
    shape = broadcast_shapes(tuple(shapes[0]), tuple(shapes[1]))  # torch's expand_outplace
    # nodes in the order grad_fn.next_functions visits them: x1's side, then x2's; where the
    # shapes differ, expand_outplace expands both (ExpandBackward0 each)
    differ = tuple(shapes[0]) != tuple(shapes[1])
    sides = []
    for x in (x1, x2):
        x = apply("expand", x, size=shape) if differ else x
        norm = apply("_clone_clamped", apply("norm", x, p=2.0, dim=(dim,), keepdim=True), min=eps)
        sides.append(apply("div", x, norm))
    return apply("sum", apply("mul", *sides), dim=dim)


COMPOSITES: tuple[Composite, ...] = (
    Composite(
        "cosine_similarity",
        2,
        (Param("dim", 1, "dim"), Param("eps", 1e-8, "number")),
        _cosine_similarity,
        torch="torch.nn.functional.cosine_similarity",
        derivative=(
            "((x1 / n1) * (x2 / n2)).sum(dim) with n = norm(x, dim, keepdim=True).clone() clamped to eps "
            "under no_grad (LinalgVectorNormBackward0, CloneBackward0, DivBackward0, MulBackward0, SumBackward1)"
        ),
        shaped=True,
    ),
    Composite(
        "normalize",
        1,
        (Param("p", 2.0, "number"), Param("dim", 1, "dim"), Param("eps", 1e-12, "number")),
        _normalize,
        torch="torch.nn.functional.normalize",
        derivative=(
            "x / x.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(x) "
            "(LinalgVectorNormBackward0, ClampMinBackward0, ExpandBackward0, DivBackward0)"
        ),
        shaped=True,
    ),
)
