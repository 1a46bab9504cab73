"""dtype conversions (`.float()`, `.double()`, `.long()`, `.bool()`) and bool logic (`& | ~`,
`torch.logical_and` and friends): values without gradients, as torch gives them.

gradcli computes in one floating dtype (--dtype), so `.float()` and `.double()` both mean
"floating": of an integer or bool tensor they make a floating one (no grad, as torch), and
of a floating tensor they are the tensor itself, as torch's `x.double()` of a float64 `x`
returns `x` (no node; a change of precision, which torch records as ToCopyBackward0, does
not happen in one dtype). `.long()` truncates toward zero and `.bool()` is `x != 0`;
neither carries a gradient in torch. `a & b`, `a | b` and `~a` take bool tensors here; on floating
ones they are torch's errors; with an int64 operand they are torch's bitwise ops on the integers.
"""

from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .core import Batching, Composite, Op, _fn, broadcast_shapes
from .dtypes import BOOL, FLOAT, INT64

_TORCH_DTYPE = {FLOAT: "Double", INT64: "Long", BOOL: "Bool"}


def _zeros_for(position: int):
    """The VJP of an operand that gets no gradient: zeros of its shape."""
    return lambda g, out, *xs, **attrs: np.zeros(np.shape(xs[position]))


def _no_grad(name: str, syntax: str, forward, torch: str, arity: int = 1, **extra) -> Op:
    """A record whose result never requires grad: conversions and logical ops."""
    return Op(
        name,
        syntax,
        forward=forward,
        vjp=tuple(_zeros_for(k) for k in range(arity)),
        sympy=lambda sp, *forms, shapes=(), **attrs: _fn(sp, name)(*forms),
        grad_fn="None",
        torch=torch,
        saves_tensors=False,
        elementwise=False,
        differentiable=False,
        infer_shape=lambda *shapes, **attrs: broadcast_shapes(*shapes),
        written=extra.pop("written", None)
        or (
            lambda texts, attrs: f"torch.{name}({', '.join(texts)})" if arity > 1 else f"{texts[0]}.{name}()"
        ),
        **extra,
    )


def _as_mask(a) -> np.ndarray:
    return np.not_equal(a, 0).astype(np.result_type(a, np.float32))


def _logical(ufunc):
    def forward(*xs):
        return ufunc(*(np.not_equal(x, 0) for x in xs)).astype(np.result_type(*xs, np.float32))

    return forward


def _integer(ufunc):
    """A bitwise ufunc on integers held as whole floats (programs) or int64 arrays (scripts)."""

    def forward(*xs):
        result = ufunc(*(np.asarray(x).astype(np.int64) for x in xs))
        return result if all(np.asarray(x).dtype.kind in "biu" for x in xs) else result.astype(np.float64)

    return forward


OPS: tuple[Op, ...] = (
    # torch's x.long() of an int64 x (and x.bool() of a bool one) is x itself; gradcli records a
    # node without grad_fn there, the same values.
    _no_grad(
        "long",
        "x.long()",
        lambda a: np.trunc(a),
        "torch.Tensor.long",
        function=False,
    ),
    _no_grad(
        "bool",
        "x.bool()",
        _as_mask,
        "torch.Tensor.bool",
        function=False,
        gives_mask=True,
    ),
    *(
        _no_grad(
            name,
            f"torch.{name}(x) or x.{name}()",
            lambda a, test=test: test(np.asarray(a)).astype(np.result_type(a, np.float32)),
            f"torch.{name}",
            gives_mask=True,
            batching=Batching("elementwise"),
        )
        for name, test, meaning in (
            ("isnan", np.isnan, "x is nan"),
            ("isinf", np.isinf, "x is +inf or -inf"),
            ("isfinite", np.isfinite, "x is neither nan nor infinite"),
        )
    ),
    _no_grad(
        "logical_not",
        "torch.logical_not(x) or x.logical_not()",
        _logical(np.logical_not),
        "torch.logical_not",
        gives_mask=True,
    ),
    *(
        _no_grad(
            f"logical_{name}",
            f"torch.logical_{name}(a, b) or a.logical_{name}(b)",
            _logical(ufunc),
            f"torch.logical_{name}",
            arity=2,
            gives_mask=True,
        )
        for name, ufunc in (("and", np.logical_and), ("or", np.logical_or), ("xor", np.logical_xor))
    ),
)

# The record `.float()` of an integer or bool tensor makes: torch's copy to a floating dtype.
# Not part of the language (programs write .float() or .double()).
INTERNAL: tuple[Op, ...] = (
    # `x.double()`, `x.float()`, `x.to(dtype)` of a floating tensor that requires grad, in a
    # script (programs compute in one dtype): torch's _to_copy, ToCopyBackward0, whose
    # gradient is the incoming one in the operand's dtype. The run runtime gives the result
    # the `dtype` asked for.
    Op(
        "_to_copy",
        "(internal) x.double() or x.float() of a floating tensor that requires grad",
        forward=lambda a, dtype="float64": np.array(a, dtype=dtype, copy=True),
        # on traced values np.asarray refuses: create_graph through it is a clear error
        vjp=(lambda g, out, a, dtype="float64": np.asarray(g).astype(np.asarray(a).dtype),),
        sympy=lambda sp, a, shapes=(), dtype="float64": a,
        grad_fn="ToCopyBackward0",
        torch="torch.Tensor.to",
        saves_tensors=False,
        elementwise=False,
        function=False,
        method=False,
        infer_shape=lambda a, dtype="float64": tuple(a),
        written=lambda texts, attrs: f"{texts[0]}.{'double' if attrs.get('dtype') == 'float64' else 'float'}()",
    ),
    Op(
        "to_float",
        "(internal) x.float() of an integer or bool tensor",
        forward=lambda a: np.array(a, copy=True),
        vjp=(lambda g, out, a: np.zeros(np.shape(a)),),
        sympy=lambda sp, a, shapes=(): a,
        grad_fn="None",
        torch="torch.Tensor.double",
        saves_tensors=False,
        elementwise=False,
        function=False,
        method=False,
        differentiable=False,
        infer_shape=lambda a: tuple(a),
        written=lambda texts, attrs: f"{texts[0]}.float()",
    ),
    # a & b, a | b, a ^ b, ~a with an int64 operand: torch's bitwise ops on the integers
    # (a bool operand counts as 0/1), int64 results without gradient
    *(
        _no_grad(
            f"_int_{name}",
            f"(internal) a {symbol} b of int64 tensors",
            _integer(ufunc),
            f"torch.{name}",
            arity=2,
            function=False,
            method=False,
            written=lambda texts, attrs, symbol=symbol: f"{texts[0]} {symbol} {texts[1]}",
        )
        for name, symbol, ufunc in (
            ("bitwise_and", "&", np.bitwise_and),
            ("bitwise_or", "|", np.bitwise_or),
            ("bitwise_xor", "^", np.bitwise_xor),
        )
    ),
    _no_grad(
        "_int_bitwise_not",
        "(internal) ~a of an int64 tensor",
        _integer(np.invert),
        "torch.bitwise_not",
        function=False,
        method=False,
        written=lambda texts, attrs: f"~{texts[0]}",
    ),
)


def _to_float(apply, x, shapes=(), dtypes=(), **_):
    # a floating tensor (or one of unknown dtype) is returned as it is: torch's x.double() is x
    return x if dtypes[0] in (FLOAT, None, "number") else apply("to_float", x)


def _bitwise(symbol: str, name: str, record: str, arity: int):
    def build(apply, *xs, shapes=(), dtypes=(), **_):
        kinds = dtypes[:arity]
        numbers = [getattr(x, "value", x) for x, kind in zip(xs, kinds) if kind == "number"]
        if numbers and FLOAT not in kinds and all(float(v).is_integer() for v in numbers):
            return apply(f"_int_{name}", *xs)  # codes | 4: the integer op, as torch's int scalar
        if FLOAT in kinds or "number" in kinds:
            if arity == 1:
                raise ShapeError(
                    "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
                )
            raise ShapeError(f"\"{name}_cpu\" not implemented for '{_TORCH_DTYPE[FLOAT]}'")
        if INT64 in kinds:
            return apply(f"_int_{name}", *xs)
        return apply(record, *xs)

    return build


COMPOSITES: tuple[Composite, ...] = (
    # x.cpu() of a CPU tensor is x itself in torch (no node): tutorials write .detach().cpu()
    Composite(
        "cpu",
        1,
        (),
        lambda apply, x, **_: x,
        torch="torch.Tensor.cpu",
        derivative="x itself (gradcli computes on the CPU; no node, as torch)",
    ),
    Composite(
        "float",
        1,
        (),
        _to_float,
        torch="torch.Tensor.float",
        derivative="x itself if floating (no node, as torch); an integer or bool tensor made floating",
        shaped=True,
    ),
    Composite(
        "double",
        1,
        (),
        _to_float,
        torch="torch.Tensor.double",
        derivative="x itself if floating (no node, as torch); an integer or bool tensor made floating",
        shaped=True,
    ),
    *(
        Composite(
            name,
            arity,
            (),
            _bitwise(symbol, name, logical, arity),
            torch=f"torch.{name}",
            derivative=f"{written} ({logical}), no gradient",
            shaped=True,
        )
        for name, symbol, logical, arity, written in (
            ("bitwise_and", "&", "logical_and", 2, "a & b of bool tensors"),
            ("bitwise_or", "|", "logical_or", 2, "a | b of bool tensors"),
            ("bitwise_xor", "^", "logical_xor", 2, "a ^ b of bool tensors"),
            ("bitwise_not", "~", "logical_not", 1, "~a of a bool tensor"),
        )
    ),
)
