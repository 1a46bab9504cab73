"""Hypothesis strategies for random gradcli programs whose inputs stay inside every op's domain.

A program is grown term by term. Each term carries its source text and its value,
computed here with plain NumPy as it is built, so an op is only applied where its
operand values lie in its domain with a margin (log of values >= 0.1, asin of
|x| <= 0.9, a divisor away from 0, ...), and every intermediate stays below
VALUE_BOUND in magnitude. That keeps the comparison with PyTorch about semantics
(rules, names, broadcasting, conventions), not about float round-off amplified by
ill-conditioned points; the singular points themselves are pinned in test_edges.py.

The texts exercise every spelling SPEC section 1 allows: infix operators, `^`,
functions and methods, `.T`/`t()`/`.t()`, `dim=`/`keepdim=` by keyword and position,
constants `pi`/`e`, number-only sub-expressions (folded), and named statements
separated by `;` or newlines.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

from gradcli.ops import NOT_METHODS
from gradcli.ops.elementwise_math import erfinv as _erfinv

# Shapes of the issue: broadcasting between them, reductions over them and matmul on
# their 1-D and 2-D members all occur.
SHAPES: tuple[tuple[int, ...], ...] = ((), (3,), (2, 3), (3, 1))
VALUE_BOUND = 200.0  # every intermediate stays within +-VALUE_BOUND

# How many random programs one run checks: the CI default takes about 15 seconds on
# two cores; GRADCLI_DEEP_EXAMPLES=20000 asks for a deep run (shared across tests by weight).
DEFAULT_EXAMPLES = 1000
TOTAL_EXAMPLES = int(os.environ.get("GRADCLI_DEEP_EXAMPLES", DEFAULT_EXAMPLES))


def examples(share: float) -> int:
    """This test's part of the total example budget (shares across the suite sum to 1)."""
    return max(1, round(TOTAL_EXAMPLES * share))


# ------------------------------------------------------------------ the ops, as NumPy sees them
# Each unary op: its NumPy value and the operand values where the generator may apply it.


def _everywhere(v: np.ndarray) -> bool:
    return True


UNARY: dict[str, tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], bool]]] = {
    "neg": (np.negative, _everywhere),
    "sin": (np.sin, _everywhere),
    "cos": (np.cos, _everywhere),
    "tan": (np.tan, lambda v: bool(np.all(np.abs(np.cos(v)) > 0.2))),
    "asin": (np.arcsin, lambda v: bool(np.all(np.abs(v) <= 0.9))),
    "acos": (np.arccos, lambda v: bool(np.all(np.abs(v) <= 0.9))),
    "atan": (np.arctan, _everywhere),
    "sinh": (np.sinh, lambda v: bool(np.all(np.abs(v) <= 5))),
    "cosh": (np.cosh, lambda v: bool(np.all(np.abs(v) <= 5))),
    # Off their plateaus: there the slope is 1 - out**2 or (1 - out)*out of an out that
    # float32 rounds to ~1, all round-off (and NumPy's and PyTorch's differ by an ulp).
    "tanh": (np.tanh, lambda v: bool(np.all(np.abs(v) <= 4))),
    "exp": (np.exp, lambda v: bool(np.all(v <= 5))),
    "log": (np.log, lambda v: bool(np.all(v >= 0.1))),
    "log1p": (np.log1p, lambda v: bool(np.all(v >= -0.9))),
    "sqrt": (np.sqrt, lambda v: bool(np.all(v >= 0.1))),
    "abs": (np.abs, _everywhere),
    "sigmoid": (lambda v: 1 / (1 + np.exp(-v)), lambda v: bool(np.all(np.abs(v) <= 6))),
    "relu": (lambda v: np.maximum(v, 0.0), _everywhere),
    "softplus": (lambda v: np.where(v > 20, v, np.log1p(np.exp(np.minimum(v, 20)))), _everywhere),
    # issue 13's elementwise math and activations (the ones with arguments are not elementwise records)
    "exp2": (np.exp2, lambda v: bool(np.all(v <= 5))),
    "expm1": (np.expm1, lambda v: bool(np.all(v <= 5))),
    "log2": (np.log2, lambda v: bool(np.all(v >= 0.1))),
    "log10": (np.log10, lambda v: bool(np.all(v >= 0.1))),
    "reciprocal": (np.reciprocal, lambda v: bool(np.all(np.abs(v) >= 0.1))),
    "rsqrt": (lambda v: 1 / np.sqrt(v), lambda v: bool(np.all(v >= 0.1))),
    "erf": (np.vectorize(math.erf, otypes=[float]), lambda v: bool(np.all(np.abs(v) <= 4))),
    "erfinv": (lambda v: _erfinv(v), lambda v: bool(np.all(np.abs(v) <= 0.9))),
    "silu": (lambda v: v / (1 + np.exp(-v)), lambda v: bool(np.all(np.abs(v) <= 6))),
    "logsigmoid": (lambda v: -np.log1p(np.exp(-v)), lambda v: bool(np.all(np.abs(v) <= 6))),
    "softsign": (lambda v: v / (1 + np.abs(v)), _everywhere),
}
BINARY_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
# Number literals as a user writes them; some are number-only expressions gradcli folds.
NUMBERS: tuple[tuple[str, float], ...] = (
    ("2", 2.0),
    ("3", 3.0),
    ("0.5", 0.5),
    ("1.5", 1.5),
    ("2.5e-1", 0.25),
    ("1e1", 10.0),
    ("pi", np.pi),
    ("e", np.e),
    ("(-2)", -2.0),
    ("(1/3)", 1 / 3),
    ("(2*pi)", 2 * np.pi),
    ("(2**0.5)", 2**0.5),
    ("sin(1)", float(np.sin(1.0))),
    ("exp(-1)", float(np.exp(-1.0))),
)
# Exponents of tensor ** number; the base must be positive for the non-integers and negatives.
EXPONENTS: tuple[tuple[str, float], ...] = (
    ("2", 2.0),
    ("3", 3.0),
    ("0", 0.0),
    ("1", 1.0),
    ("0.5", 0.5),
    ("(-1)", -1.0),
    ("2.5", 2.5),
    ("(-0.5)", -0.5),
)
# Bases of number ** tensor.
BASES: tuple[tuple[str, float], ...] = (("2", 2.0), ("0.5", 0.5), ("e", np.e), ("3", 3.0))


@dataclass(frozen=True)
class Term:
    """A piece of program text with the value it will have and what it depends on."""

    text: str  # parenthesised where needed, so it can stand as any operand
    value: np.ndarray  # float64, computed here with NumPy
    tensor: bool  # False for number-only text (Python and gradcli fold it)
    grad: bool  # depends on a leaf (requires grad)
    ops: frozenset[str] = field(default=frozenset())

    @property
    def shape(self) -> tuple[int, ...]:
        return np.shape(self.value)

    def __or__(self, ops: set[str]) -> Term:
        """The same term, recording more ops it applies."""
        return Term(self.text, self.value, self.tensor, self.grad, self.ops | ops)


@dataclass(frozen=True)
class GeneratedProgram:
    """A program with its inputs, ready for gradcli.grad and for the torch oracle."""

    source: str
    at: dict[str, np.ndarray]
    const: dict[str, np.ndarray]
    output_shape: tuple[int, ...]
    ops: frozenset[str]  # the ops it applies, for coverage statistics

    @property
    def scalar_output(self) -> bool:
        return self.output_shape == ()

    def __repr__(self) -> str:  # hypothesis prints this on failure: make it a reproducer
        at = {k: v.tolist() for k, v in self.at.items()}
        const = {k: v.tolist() for k, v in self.const.items()}
        return f"GeneratedProgram(source={self.source!r}, at={at!r}, const={const!r})"


def _fits(value: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(value)) and np.all(np.abs(value) <= VALUE_BOUND))


def _broadcasts(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def _matmul_fits(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    # not a 1-D vector times a matrix: torch records that as three nodes (unsqueeze, mm, squeeze;
    # ops/products.py), and the oracle runs a program op for op (test_spellings covers it)
    return len(a) in (1, 2) and len(b) in (1, 2) and a[-1] == b[0] and (len(a), len(b)) != (1, 2)


def _combine(text: str, value, *parts: Term, op: str) -> Term:
    ops = frozenset().union(*(p.ops for p in parts)) | {op}
    return Term(
        text,
        np.asarray(value, dtype=np.float64),
        any(p.tensor for p in parts),
        any(p.grad for p in parts),
        ops,
    )


class _Builder:
    """Draws terms; `draw` is hypothesis's, so every choice shrinks."""

    def __init__(
        self,
        draw,
        pool: list[Term],
        allow_matmul: bool,
        softplus_cap: float | None,
        elementwise_only: bool = False,
    ) -> None:
        self.draw = draw
        self.pool = pool
        self.allow_matmul = allow_matmul
        self.softplus_cap = softplus_cap
        self.elementwise_only = elementwise_only

    def pick(self, need_grad: bool) -> Term:
        choices = [t for t in self.pool if t.grad] if need_grad else self.pool
        return self.draw(st.sampled_from(choices))

    def number(self) -> Term:
        text, value = self.draw(st.sampled_from(NUMBERS))
        return Term(text, np.asarray(value), False, False)

    def term(self, depth: int, need_grad: bool) -> Term:
        if depth <= 0:
            return self.pick(need_grad)
        kinds = ["name", "unary", "unary", "binary", "binary", "binary", "pow"]
        if not self.elementwise_only:
            kinds += ["reduce", "transpose"] + (["matmul"] if self.allow_matmul else [])
            # clamp_min's bound is an attr: scalar programs feed sympy the op's form without attrs
            kinds += ["bound"] if self.allow_matmul else []
            # a constant made in the program (torch.tensor, torch.full), combined with a term
            kinds += ["made"] if self.allow_matmul else []
        kind = self.draw(st.sampled_from(kinds))
        if kind == "name":
            return self.pick(need_grad)
        if kind == "unary":
            return self.unary(self.term(depth - 1, need_grad))
        if kind == "binary":
            return self.binary(depth, need_grad)
        if kind == "pow":
            return self.power(depth, need_grad)
        if kind == "reduce":
            return self.reduce(self.term(depth - 1, need_grad))
        if kind == "transpose":
            return self.transpose(self.term(depth - 1, need_grad))
        if kind == "bound":
            return self.bound(self.term(depth - 1, need_grad))
        if kind == "made":
            return self.made(self.term(depth - 1, need_grad))
        return self.matmul(depth, need_grad)

    def made(self, a: Term) -> Term:
        """`a` times a constant of its shape made inside the program: torch.tensor([...]) of
        two-decimal numbers, or torch.full(shape, v) / torch.ones(shape)."""
        shape = a.shape
        values = _array(self.draw, shape, -2.0, 2.0)
        form = self.draw(st.sampled_from(["tensor", "full", "ones"]))
        if form == "full":
            fill = float(values.flat[0]) if values.size else 0.5
            values = np.full(shape, fill)
            text = f"torch.full({tuple(shape)!r}, {fill!r})"
        elif form == "ones":
            values = np.ones(shape)
            text = f"torch.ones({tuple(shape)!r})"
        else:
            text = f"torch.tensor({values.tolist()!r})"
        made = Term(text, values, True, False, frozenset({form}))
        return _combine(f"({a.text} * {made.text})", a.value * values, a, made, op="mul")

    def bound(self, a: Term) -> Term:
        """x.clamp_min(m) / torch.clamp_max(x, m): ClampMinBackward0, the bound itself included."""
        name = self.draw(st.sampled_from(["clamp_min", "clamp_max"]))
        bound_text, bound = self.draw(st.sampled_from([("0.5", 0.5), ("-1", -1.0), ("0", 0.0)]))
        value = np.maximum(a.value, bound) if name == "clamp_min" else np.minimum(a.value, bound)
        spelled = self.draw(st.sampled_from(["{a}.{f}({m})", "torch.{f}({a}, {m})"]))
        return _combine(spelled.format(a=a.text, f=name, m=bound_text), value, a, op=name)

    # -- one builder per kind of op

    def into_domain(self, a: Term, name: str) -> Term:
        """Rewrite `a` so that `name` may apply: a*a + 0.25 >= 0.25, 0.9*tanh(a/50) in (-0.9, 0.9).

        a/50 keeps tanh off its plateau (|a| <= VALUE_BOUND, so |a/50| <= 4): there,
        1 - tanh**2 in float32 would be all round-off, and NumPy's and PyTorch's float32
        tanh differ by an ulp near 1. (sin instead would meet the large `a` this rewrite
        gets, where float32 sin and cos are ill-conditioned.)
        """
        if name in ("asin", "acos"):
            value = 0.9 * np.tanh(a.value / 50)
            return _combine(f"(0.9 * tanh({a.text} / 50))", value, a, op="tanh") | {"mul", "div"}
        return _combine(f"(({a.text} * {a.text}) + 0.25)", a.value * a.value + 0.25, a, op="mul") | {"add"}

    def unary(self, a: Term) -> Term:
        allowed = []
        with np.errstate(all="ignore"):
            for name, (fn, domain) in UNARY.items():
                if (
                    name == "softplus"
                    and self.softplus_cap is not None
                    and np.any(a.value > self.softplus_cap)
                ):
                    continue
                if domain(a.value) and _fits(fn(a.value)):
                    allowed.append(name)
        if self.draw(st.integers(0, 3)) == 0:  # the ops with narrow domains, often
            name = self.draw(st.sampled_from(["log", "sqrt", "asin", "acos", "log1p"]))
            if name not in allowed:
                a = self.into_domain(a, name)
        else:
            name = self.draw(st.sampled_from(allowed))
        value = UNARY[name][0](a.value)
        if name == "neg":
            plus = self.draw(st.booleans())  # unary + is the identity, as in PyTorch
            return _combine(f"(-(+{a.text}))" if plus else f"(-{a.text})", value, a, op=name)
        # torch has no Tensor.silu: F.silu(x) or silu(x) only
        spelling = "function" if name in NOT_METHODS else self.draw(st.sampled_from(["function", "method"]))
        text = f"{name}({a.text})" if spelling == "function" else f"{a.text}.{name}()"
        return _combine(text, value, a, op=name)

    def binary(self, depth: int, need_grad: bool) -> Term:
        a = self.term(depth - 1, need_grad)
        b = self.number() if self.draw(st.booleans()) else self.term(depth - 1, False)
        if not _broadcasts(a.shape, b.shape):
            return a
        if self.draw(st.booleans()):
            a, b = b, a  # the number (or the other tensor) on the left: 2 - x, 2 / x
        names = ["add", "sub", "mul"] + (["div"] if np.all(np.abs(b.value) >= 0.1) else [])
        with np.errstate(all="ignore"):
            values = {"add": a.value + b.value, "sub": a.value - b.value, "mul": a.value * b.value}
            if "div" in names:
                values["div"] = a.value / b.value
        names = [n for n in names if _fits(values[n])]
        if not names:
            return a
        name = self.draw(st.sampled_from(names))
        return _combine(f"({a.text} {BINARY_SYMBOL[name]} {b.text})", values[name], a, b, op=name)

    def power(self, depth: int, need_grad: bool) -> Term:
        form = self.draw(st.sampled_from(["tensor**number", "tensor**tensor", "number**tensor"]))
        spell = self.draw(st.sampled_from(["{a} ** {b}", "{a} ^ {b}", "pow({a}, {b})", "{a}.pow({b})"]))
        if form == "number**tensor":
            base_text, base = self.draw(st.sampled_from(BASES))
            b = self.term(depth - 1, need_grad)
            value = np.power(base, b.value)
            if not _fits(value):
                return b
            spell = spell if not spell.startswith("{a}.") else "{a} ** {b}"  # no methods on numbers
            text = "(" + spell.format(a=base_text, b=b.text) + ")"
            return _combine(text, value, b, op="pow")
        a = self.term(depth - 1, need_grad)
        if form == "tensor**number":
            exponent_text, exponent = self.draw(st.sampled_from(EXPONENTS))
            whole = exponent == int(exponent) and exponent >= 0
            if not whole and not np.all(a.value >= 0.1):
                return a
            with np.errstate(all="ignore"):
                value = np.power(a.value, exponent)
            if not _fits(value):
                return a
            return _combine("(" + spell.format(a=a.text, b=exponent_text) + ")", value, a, op="pow")
        b = self.term(depth - 1, False)
        if not np.all(a.value >= 0.1) and self.draw(st.booleans()):
            a = self.into_domain(a, "log")
        if not (np.all(a.value >= 0.1) and np.all(np.abs(b.value) <= 3) and _broadcasts(a.shape, b.shape)):
            return a
        with np.errstate(all="ignore"):
            value = np.power(a.value, b.value)
        if not _fits(value):
            return a
        return _combine("(" + spell.format(a=a.text, b=b.text) + ")", value, a, b, op="pow")

    def reduce(self, a: Term) -> Term:
        if not a.tensor:
            return a
        name = self.draw(st.sampled_from(["sum", "mean"]))
        ndim = a.value.ndim
        dims = [None, *range(-max(ndim, 1), max(ndim, 1))]
        dim = self.draw(st.sampled_from(dims))
        keepdim = self.draw(st.booleans())
        axis = None if dim is None or ndim == 0 else dim
        fn = np.sum if name == "sum" else np.mean
        value = fn(a.value, axis=axis, keepdims=keepdim and ndim > 0)
        if dim is None and keepdim and ndim > 0:
            value = np.reshape(value, (1,) * ndim)
        spelling = self.draw(st.sampled_from(["method", "function", "positional", "method positional"]))
        args = []
        if dim is not None:
            args.append(f"dim={dim}")
        if keepdim:
            args.append("keepdim=True")
        if spelling == "method":
            text = f"{a.text}.{name}({', '.join(args)})"
        elif spelling == "function" or dim is None:
            text = f"{name}({', '.join([a.text, *args])})"
        elif spelling == "method positional":
            text = f"{a.text}.{name}({dim}{', True' if keepdim else ''})"
        else:
            text = f"{name}({a.text}, {dim}{', True' if keepdim else ''})"
        return _combine(text, value, a, op=name)

    def transpose(self, a: Term) -> Term:
        if not a.tensor:
            return a
        spelling = self.draw(st.sampled_from(["{a}.T", "t({a})", "{a}.t()"]))
        op = "T" if spelling == "{a}.T" else "t"
        return _combine(spelling.format(a=a.text), np.transpose(a.value), a, op=op)

    def matmul(self, depth: int, need_grad: bool) -> Term:
        a = self.term(depth - 1, need_grad)
        partners = [t for t in self.pool if _matmul_fits(a.shape, t.shape)]
        if not _matmul_fits(a.shape, a.shape) and not partners and a.value.ndim == 2:
            a = _combine(f"{a.text}.T", a.value.T, a, op="T")
            partners = [t for t in self.pool if _matmul_fits(a.shape, t.shape)]
        candidates = partners + [
            _combine(f"{t.text}.T", t.value.T, t, op="T")
            for t in self.pool
            if t.value.ndim == 2 and _matmul_fits(a.shape, t.value.T.shape)
        ]
        if not candidates:
            return a
        b = self.draw(st.sampled_from(candidates))
        value = np.matmul(a.value, b.value)
        if not _fits(value):
            return a
        spelling = self.draw(st.sampled_from(["({a} @ {b})", "matmul({a}, {b})", "{a}.matmul({b})"]))
        return _combine(spelling.format(a=a.text, b=b.text), value, a, b, op="matmul")


def _array(draw, shape: tuple[int, ...], low: float, high: float) -> np.ndarray:
    count = int(np.prod(shape)) if shape else 1
    # Two decimals: short, readable reproducers, and exact zeros and repeats still occur.
    elements = st.integers(int(low * 100), int(high * 100)).map(lambda n: n / 100)
    values = draw(st.lists(elements, min_size=count, max_size=count))
    return np.asarray(values, dtype=np.float64).reshape(shape)


@st.composite
def programs(
    draw,
    shapes: tuple[tuple[int, ...], ...] = SHAPES,
    max_statements: int = 4,
    max_depth: int = 3,
    allow_matmul: bool = True,
    allow_consts: bool = True,
    softplus_cap: float | None = None,
    elementwise_only: bool = False,
) -> GeneratedProgram:
    """A random program over every op of SPEC section 1, with a point inside its domain.

    `elementwise_only` leaves out reductions, transposes and matmul.
    """
    leaf_count = draw(st.integers(1, 3))
    at = {f"x{i}": _array(draw, draw(st.sampled_from(shapes)), -3, 3) for i in range(1, leaf_count + 1)}
    const: dict[str, np.ndarray] = {}
    if allow_consts and draw(st.booleans()):
        const["c"] = _array(draw, draw(st.sampled_from(shapes)), -2, 2)
    pool = [Term(n, v, True, True) for n, v in at.items()] + [
        Term(n, v, True, False) for n, v in const.items()
    ]
    builder = _Builder(draw, pool, allow_matmul, softplus_cap, elementwise_only)
    statements: list[str] = []
    count = draw(st.integers(1, max_statements))
    output: Term | None = None
    for index in range(1, count + 1):
        last = index == count
        output = builder.term(draw(st.integers(1, max_depth)), need_grad=last)
        if last and draw(st.booleans()):
            statements.append(output.text)
        else:
            name = "out" if last else f"v{index}"
            statements.append(f"{name} = {output.text}")
            builder.pool.append(Term(name, output.value, True, output.grad, output.ops))
    assert output is not None and output.grad
    used = {n for n in [*at, *const] if _mentions(statements, n)}
    at = {n: v for n, v in at.items() if n in used}
    const = {n: v for n, v in const.items() if n in used}
    separator = draw(st.sampled_from(["; ", "\n"]))
    ops = frozenset().union(*(t.ops for t in builder.pool), output.ops)
    return GeneratedProgram(separator.join(statements), at, const, output.value.shape, ops)


def _mentions(statements: list[str], name: str) -> bool:
    import re

    pattern = re.compile(rf"\b{re.escape(name)}\b")
    return any(pattern.search(s) for s in statements)


def scalar_programs(**kwargs) -> st.SearchStrategy[GeneratedProgram]:
    """Programs of scalar inputs only, so elementwise notation is exact (for sympy)."""
    kwargs.setdefault("softplus_cap", 15.0)  # above 20 torch's softplus is linear, sympy's is not
    return programs(shapes=((),), allow_matmul=False, **kwargs)


@st.composite
def upstream_gradient(draw, shape: tuple[int, ...]) -> np.ndarray:
    """A random upstream gradient of the given shape (masks of 0/1 and other values)."""
    return _array(draw, shape, -2, 2)
