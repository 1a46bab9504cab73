"""Formulas in the program's and PyTorch's vocabulary: the text reading of a gradient graph.

The VJP rules run on a tape of formulas (traced.formula_backward) and record registry
ops; this module writes each recorded op as a PyTorch user writes it: `adj_h*(h > 0)`,
`X.T @ adj_t2`, `adj_t1.sum(0)`, `sigmoid(t3)`, with parentheses only where Python's
precedence needs them. The chain-rule column is this reading of each edge's contribution,
with every other adjoint by name; nothing here knows a derivative.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from .local_steps import written_form
from .ops import COMPARISON_SYMBOLS, REGISTRY, Op

# Python's binding strengths, loosest first
COMPARE, SUM, PRODUCT, UNARY, POWER, ATOM = range(6)


@dataclass(frozen=True)
class Text:
    """A formula's text, how tightly it binds, and its value when it is a plain number."""

    text: str
    level: int = ATOM
    number: float | None = None
    operator: str = ""  # the outermost infix operator, for the parentheses around a right side
    # text == coefficient*rest (`2*t4/3` is 2/3 and t4): products fold their numbers into one
    coefficient: Fraction | None = None
    rest: Text | None = None
    parts: tuple[Text, Text] | None = None  # the outermost infix operator's two sides
    each: bool = False  # a number meaning each element's derivative (--explain): sums keep it


def number(value: float) -> Text:
    """A number as a formula writes it: 2, 0.5, -1 (bound as a unary minus)."""
    if math.isnan(value) or math.isinf(value):
        text = "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    elif value == int(value) and abs(value) < 1e15:
        text = str(int(value))
    else:
        text = repr(float(value))
    return Text(text, UNARY if text.startswith("-") else ATOM, float(value))


def name(text: str) -> Text:
    return Text(text)


def _wrapped(operand: Text, level: int) -> str:
    """The operand as it may stand where `level` binds: in parentheses when looser."""
    return operand.text if operand.level >= level else f"({operand.text})"


def _infix(symbol: str, level: int, a: Text, b: Text) -> Text:
    # the right side of - and / (and of every operator here) in parentheses at the same level
    # a + (b - c) is a + b - c and a*(b/c) is a*b/c; a*(b @ c) and a - (b + c) keep theirs
    same = (symbol == "+" and b.operator in ("+", "-")) or (symbol == "*" and b.operator in ("*", "/"))
    right = b.text if b.level > level or (b.level == level and same) else f"({b.text})"
    spaced = f" {symbol} " if symbol in ("+", "-", "@") else symbol  # 2*x*(1 - x), as sympy writes
    return Text(f"{_wrapped(a, level)}{spaced}{right}", level, operator=symbol, parts=(a, b))


def _dims(dims: Any) -> str:
    if isinstance(dims, (tuple, list)):
        return str(dims[0]) if len(dims) == 1 else "(" + ", ".join(map(str, dims)) + ")"
    return str(dims)


def _sizes(size: Any) -> str:
    return ", ".join(map(str, size))


# calls that move a tensor's elements without changing them: a number stays that number
_SHAPING = ("expand(", "view(", "reshape(", "unsqueeze(", "squeeze(", "permute(", "transpose(", "flip(")


def _method(receiver: Text, call: str, summed: int | None = None) -> Text:
    """receiver.call; a number receiver stands for a tensor of that number throughout (the
    upstream gradient's ones, --explain's g = 1): moved it is the number, summed over
    `summed` elements it is their total."""
    if receiver.number is not None:
        if call.startswith(_SHAPING) or call in ("T", "mT", "mean()") or call.startswith("mean("):
            return receiver
        if receiver.each and call.startswith("sum("):
            return receiver
        if call.startswith("sum(") and summed is not None:
            return number(receiver.number * summed)
    return Text(f"{_wrapped(receiver, ATOM)}.{call}")


def _count(shape: Any, dims: Any) -> int | None:
    """How many elements a sum over `dims` of a tensor of `shape` adds up (None: unknown)."""
    if shape is None:
        return None
    shape = tuple(shape)
    if dims is None or dims == ():
        return math.prod(shape)
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    if any(not -len(shape) <= d < max(len(shape), 1) for d in dims):
        return None
    return math.prod(shape[d] for d in dims) if shape else 1


def add(a: Text, b: Text) -> Text:
    if a.number == 0:
        return b
    if b.number == 0:
        return a
    if b.number is not None and b.number < 0:
        return _infix("-", SUM, a, number(-b.number))
    if b.text.startswith("-") and b.level in (UNARY, PRODUCT):  # -u binds tighter than *
        return _infix("-", SUM, a, Text(b.text[1:], PRODUCT))
    return _infix("+", SUM, a, b)


def sub(a: Text, b: Text) -> Text:
    if b.number == 0:
        return a
    if (b.coefficient or 0) < 0:  # a - (-2*y) is a + 2*y
        return add(a, neg(b))
    if a.number == 0:
        return neg(b)
    return _infix("-", SUM, a, b)


def _exact(value: float) -> Fraction | None:
    """A number as a small fraction (2, 1/3, 0.5), or None for one that is not (0.1234567)."""
    if math.isnan(value) or math.isinf(value):
        return None
    found = Fraction(value).limit_denominator(1000)
    return found if float(found) == value and abs(found.numerator) < 10**9 else None


def _split(a: Text) -> tuple[Fraction, Text | None] | None:
    """(coefficient, rest) of a product with a number in front; a plain number has no rest."""
    if a.number is not None:
        exact = _exact(a.number)
        return None if exact is None else (exact, None)
    if a.coefficient is not None:
        return a.coefficient, a.rest
    return Fraction(1), a


def scaled(coefficient: Fraction, rest: Text | None) -> Text:
    """coefficient*rest as a person writes it: 2*t4, t4/3, 2*t4/3, -t4, 2/3."""
    if rest is None:
        if coefficient.denominator == 1:
            return number(float(coefficient))
        p, q = abs(coefficient.numerator), coefficient.denominator
        sign = "-" if coefficient < 0 else ""
        return Text(f"{sign}{p}/{q}", UNARY if sign else PRODUCT, float(coefficient), "/")
    if coefficient == 0:
        return number(0)
    if coefficient == 1:
        return rest
    p, q = coefficient.numerator, coefficient.denominator
    if q != 1 and rest.operator == "/" and rest.parts:  # 2*y/(3*p), not 2*y/p/3
        top, bottom = rest.parts
        body = _infix("/", PRODUCT, mul(number(p), top), mul(number(q), bottom))
        return replace(body, coefficient=coefficient, rest=rest)
    if p == 1:
        body = rest
    elif p == -1:
        body = _negated(rest)
    else:
        body = _infix("*", PRODUCT, number(p), rest)
    if q != 1:
        body = _infix("/", PRODUCT, body, number(q))
    return replace(body, coefficient=coefficient, rest=rest)


def mul(a: Text, b: Text) -> Text:
    if a.number == 0 or b.number == 0:  # a rule's mask folded to 0 (`2 ** b`: base == 0)
        return number(0)
    left, right = _split(a), _split(b)
    if left is None or right is None:  # a number that is no small fraction stays where it is
        for one, other in ((a, b), (b, a)):
            if one.number == 1:
                return other
        return _infix("*", PRODUCT, a, b)
    (c, x), (d, y) = left, right
    if x is None and y is None:
        return replace(scaled(c * d, None), each=a.each or b.each)
    if x is None or y is None:
        return scaled(c * d, x if y is None else y)
    return scaled(
        c * d, _infix("*", PRODUCT, x, y)
    )  # in the rule's order: the gradient, then the local factor


def div(a: Text, b: Text) -> Text:
    split = _split(a)
    if b.number is not None:
        exact = _exact(b.number)
        if exact and split is not None:
            return scaled(split[0] / exact, split[1])
        if b.number == 1:
            return a
    elif split is not None and split[0] != 1:  # 2*y/(3*p): the number stays in front
        return scaled(split[0], div(split[1] or number(1), b))
    if a.operator == "/" and a.parts and a.parts[1].text == b.text:  # x/y/y is x/y**2
        return _infix("/", PRODUCT, a.parts[0], power(b, number(2)))
    return _infix("/", PRODUCT, a, b)


def neg(a: Text) -> Text:
    if a.number is not None:
        return number(-a.number)
    if a.coefficient is not None:
        return scaled(-a.coefficient, a.rest)
    return scaled(Fraction(-1), a)


def _negated(a: Text) -> Text:
    if a.level == UNARY and a.text.startswith("-"):
        return Text(a.text[1:], PRODUCT)
    if a.level == PRODUCT and not a.text.startswith("-"):  # -(x/y) is -x/y: the sign commutes
        return Text(f"-{a.text}", PRODUCT)
    return Text(f"-{_wrapped(a, UNARY)}", UNARY)


def power(a: Text, b: Text) -> Text:
    if b.number == 1:
        return a
    if b.number == 0:
        return number(1)
    right = b.text if b.level == ATOM else f"({b.text})"
    return Text(f"{_wrapped(a, POWER + 1)}**{right}", POWER)


def _reduction(method: str) -> Callable[..., Text]:
    def write(a: Text, dim: Any = None, keepdim: bool = False, shapes: tuple = (), **attrs: Any) -> Text:
        summed = _count(shapes[0], dim) if shapes else None
        if dim is None or dim == ():
            return _method(a, f"{method}()", summed)
        return _method(a, f"{method}({_dims(dim)}{', keepdim=True' if keepdim else ''})", summed)

    return write


def _sum_to(a: Text, size: Any = (), shapes: tuple = ((),)) -> Text:
    dims = tuple(i for i, (n, m) in enumerate(zip(shapes[0], size)) if m == 1 and n != 1)
    return _method(a, f"sum({_dims(dims)}, keepdim=True)", _count(shapes[0], dims))


# How the ops a rule records most are written; any other op by its record's first spelling
SPELLINGS: dict[str, Callable[..., Text]] = {
    "add": lambda a, b, **_: add(a, b),
    "sub": lambda a, b, **_: sub(a, b),
    "mul": lambda a, b, **_: mul(a, b),
    "div": lambda a, b, **_: div(a, b),
    "neg": lambda a, **_: neg(a),
    "pow": lambda a, b, **_: power(a, b),
    "matmul": lambda a, b, **_: _infix("@", PRODUCT, a, b),
    "sum": _reduction("sum"),
    "mean": _reduction("mean"),
    "sum_to": _sum_to,
    "t": lambda a, **_: _method(a, "T"),
    "T": lambda a, **_: _method(a, "T"),
    "mT": lambda a, **_: _method(a, "mT"),
    "transpose": lambda a, dim0=0, dim1=1, **_: _method(a, f"transpose({dim0}, {dim1})"),
    "expand": lambda a, size=(), **_: _method(a, f"expand({_sizes(size)})"),
    "unsqueeze": lambda a, dim=0, **_: _method(a, f"unsqueeze({dim})"),
    "squeeze_dims": lambda a, dims=(0,), **_: _method(a, f"squeeze({_dims(dims)})"),
    "view": lambda a, size=(), **_: _method(a, f"view({_sizes(size)})"),
    "_unsafe_view": lambda a, size=(), **_: _method(a, f"view({_sizes(size)})"),
    "reshape": lambda a, shape=(), **_: _method(a, f"reshape({_sizes(shape)})"),
    "where": lambda c, a, b, **_: _where(c, a, b),
    # the fused backward kernels, as the products they compute
    "threshold_backward": lambda g, a, threshold=0.0, **_: mul(
        g, _compare(">", _inside_relu(a) if threshold == 0 else a, number(threshold))
    ),
    "tanh_backward": lambda g, out, **_: mul(g, sub(number(1), power(out, number(2)))),
    "sigmoid_backward": lambda g, out, **_: mul(mul(g, out), sub(number(1), out)),
    "log_sigmoid_backward": lambda g, a, **_: mul(g, sub(number(1), Text(f"sigmoid({a.text})"))),
    "softplus_backward": lambda g, a, **_: mul(g, Text(f"sigmoid({a.text})")),
    "sgn": lambda a, **_: Text(f"sign({a.text})"),
    "elu_backward": lambda g, a, alpha=1.0, scale=1.0, **_: _where(
        _compare(">", a, number(0)),
        mul(number(scale), g),
        mul(mul(number(alpha * scale), g), Text(f"exp({a.text})")),
    ),
    "leaky_relu_backward": lambda g, a, negative_slope=0.01, **_: _where(
        _compare(">", a, number(0)), g, mul(number(negative_slope), g)
    ),
    "hardtanh_backward": lambda g, a, min_val=-1.0, max_val=1.0, **_: mul(
        g,
        Text(
            f"({_compare('>', a, number(min_val)).text}) & ({_compare('<', a, number(max_val)).text})",
            COMPARE,
        ),
    ),
    "gelu_backward": lambda g, a, approximate="none", **_: (
        mul(
            g,
            Text(
                f"0.5 * (1 + erf({_wrapped(a, PRODUCT)} * {_SQRT1_2!r})) + {_wrapped(a, PRODUCT)} * "
                f"exp(-0.5 * {_wrapped(a, POWER + 1)}**2) * {_PDF!r}",
                SUM,
            ),
        )
        if approximate == "none"
        else mul(g, _gelu_tanh_slope(a))
    ),
    "permute": lambda a, dims=(), **_: _method(a, f"permute({_sizes(dims)})"),
    # the placing kernels, as torch's functions that place a gradient into zeros
    "select_backward": lambda g, shape=(), dim=0, index=0, **_: _zeros_then(
        shape, f"select_scatter({g.text}, {dim}, {index})"
    ),
    "slice_backward": lambda g, shape=(), dim=0, start=None, end=None, step=1, **_: _zeros_then(
        shape, f"slice_scatter({g.text}, {dim}, {start}, {end}{f', {step}' if step != 1 else ''})"
    ),
    "scatter": lambda g, index, dim=0, shape=(), **_: _zeros_then(
        shape, f"scatter({dim}, {index.text}, {g.text})"
    ),
    "scatter_add": lambda g, index, dim=0, shape=(), **_: _zeros_then(
        shape, f"scatter_add({dim}, {index.text}, {g.text})"
    ),
    "masked_fill_tensor": lambda mask, value, shape=(), **_: _zeros_then(
        shape, f"masked_fill({mask.text}, {value.text})"
    ),
    "topk_indices": lambda a, k=1, dim=-1, largest=True, **_: Text(
        f"{_wrapped(a, ATOM)}.topk({k}, {dim}{'' if largest else ', largest=False'}).indices"
    ),
    # the nn kernels, as the sums and products they compute
    "_softmax_backward_data": lambda g, out, dim=None, **_: mul(
        out, sub(g, _method(Text(mul(g, out).text, PRODUCT), f"sum({dim}, keepdim=True)"))
    ),
    "_log_softmax_backward_data": lambda g, out, dim=None, shapes=((),), **_: _log_softmax_grad(
        g, out, dim, shapes
    ),
    "nll_loss_backward": lambda g, x, t, reduction="mean", shapes=(), **_: _nll(g, t, reduction, shapes),
    "mse_loss_backward": lambda g, a, b, reduction="mean", shapes=(), **_: _mse(g, a, b, reduction, shapes),
}


def _inside_relu(out: Text) -> Text:
    """z where `out` is written relu(z): relu(z) > 0 exactly where z > 0 (nan in neither)."""
    inner = out.text[5:-1]
    if out.text.startswith("relu(") and _balanced(inner) and not any(c in inner for c in "<>=!&|,"):
        return Text(out.text[5:-1], COMPARE + 1)
    return out


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _log_softmax_grad(g: Text, out: Text, dim: Any, shapes: tuple) -> Text:
    """g - softmax*g.sum(dim, keepdim=True); from a mean or sum nll_loss, c*one_hot(t, n),
    whose rows each sum to c, it is c*(one_hot(t, n) - softmax): cross-entropy's gradient."""
    soft = _exp_of_log_softmax(out)
    rows = len(shapes[0]) == 2 and dim in (1, -1)
    if rows and g.coefficient is not None and g.rest is not None and g.rest.text.startswith("one_hot("):
        return scaled(-g.coefficient, sub(soft, g.rest))
    return sub(g, mul(soft, _method(g, f"sum({dim}, keepdim=True)", _count(shapes[0], dim))))


def _exp_of_log_softmax(out: Text) -> Text:
    """exp(out); softmax(z, dim) where `out` is written log_softmax(z, dim)."""
    if out.text.startswith("log_softmax(") and _CALL.match(out.text):
        return Text(out.text[len("log_") :])
    return Text(f"exp({out.text})")


def _zeros_then(shape: Any, call: str) -> Text:
    return Text(f"zeros({_sizes(shape) if shape else '()'}).{call}")


def _index_put(g: Text, *tensors: Text, shape: Any = (), key: tuple = (), **_: Any) -> Text:
    """zeros with g added at the indexed elements, as index_put(..., accumulate=True) does."""
    parts = []
    for entry in key:
        if entry[0] == "list":
            parts.append(f"tensor({np.asarray(entry[1]).tolist()})")
        elif entry[0] == "tensor":
            parts.append(tensors[entry[1]].text)
        else:  # a slice or a mask: the kernel by torch's name
            return Text(f"index_put_backward({g.text}, shape={tuple(shape)}, key={key!r})")
    indices = f"({', '.join(parts)}{',' if len(parts) == 1 else ''})"
    return _zeros_then(shape, f"index_put({indices}, {g.text}, accumulate=True)")


def _rows(shape: tuple) -> int:
    return math.prod(shape[:1]) if len(shape) > 1 else 1


def _nll(g: Text, t: Text, reduction: str, shapes: tuple) -> Text:
    """nll_loss's gradient: -g at each row's target class (one_hot), over the rows for a mean."""
    classes = shapes[1][-1] if len(shapes) > 1 and shapes[1] else 1
    target = Text(f"one_hot({t.text}, {classes})")
    if reduction == "none" and len(shapes[1]) > 1:
        g = _method(g, "unsqueeze(1)")
    found = neg(mul(g, target))
    return div(found, number(_rows(shapes[1]))) if reduction == "mean" else found


def _mse(g: Text, a: Text, b: Text, reduction: str, shapes: tuple) -> Text:
    found = mul(mul(number(2), Text(sub(a, b).text, SUM)), g)
    size = math.prod(shapes[1]) if len(shapes) > 1 else 1
    return div(found, number(size)) if reduction == "mean" else found


_SQRT1_2 = 0.7071067811865476
_PDF = 0.3989422804014327  # 1/sqrt(2*pi)


def _gelu_tanh_slope(a: Text) -> Text:
    """d/dx of gelu's tanh form, as torch's gelu_backward computes it (k = sqrt(2/pi))."""
    x = _wrapped(a, POWER + 1)
    tanh = f"tanh({_GELU_K!r}*({a.text} + 0.044715*{x}**3))"
    return Text(f"0.5*(1 + {tanh}) + 0.5*{x}*(1 - {tanh}**2)*{_GELU_K!r}*(1 + 0.134145*{x}**2)", SUM)


_GELU_K = 0.7978845608028654


def _where(condition: Text, a: Text, b: Text) -> Text:
    if condition.number is not None:
        return a if condition.number else b
    return Text(f"where({condition.text}, {a.text}, {b.text})")


def _compare(symbol: str, a: Text, b: Text) -> Text:
    return Text(f"{_wrapped(a, SUM)} {symbol} {_wrapped(b, SUM)}", COMPARE)


SPELLINGS["index_put"] = SPELLINGS["index_put1"] = SPELLINGS["index_put2"] = _index_put
for _op, _symbol in COMPARISON_SYMBOLS.items():
    SPELLINGS[_op] = lambda a, b, _symbol=_symbol, **_: _compare(_symbol, a, b)

_SHAPED = (
    "sum",
    "mean",
    "sum_to",
    "nll_loss_backward",
    "mse_loss_backward",
    "_log_softmax_backward_data",
)  # spellings that read the shapes
_CALL = re.compile(r"^[\w.]+\(.*\)$|^[\w.]+$|^.*\]$")


def _plain(value: Any) -> Any:
    """An attribute as Python writes it: 1, not np.int64(1)."""
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    if hasattr(value, "item") and not hasattr(value, "shape") or getattr(value, "shape", None) == ():
        return value.item()
    return value


def spell(op: Op, args: list[Text], attrs: dict, shapes: tuple = ()) -> Text:
    """The op applied to these operands, as a PyTorch user writes it."""
    attrs = {key: _plain(value) for key, value in attrs.items()}
    write = SPELLINGS.get(op.name)
    if write is not None:
        extra = {"shapes": shapes} if op.name in _SHAPED else {}
        return write(*args, **attrs, **extra)
    if op.syntax.startswith("(internal)"):  # a backward kernel: torch's own name for it
        settings = "".join(f", {k}={v!r}" for k, v in attrs.items())
        return Text(f"{op.name}({', '.join(a.text for a in args)}{settings})")
    first = re.split(r", | or ", op.syntax)[0]
    if re.match(r"^[\w.]+\(", first):  # a call: its arguments stand bare
        texts = [a.text for a in args]
    elif re.match(r"^[a-zA-Z]\.\w", first):  # a method: the receiver binds, the arguments bare
        texts = [_wrapped(args[0], ATOM), *(a.text for a in args[1:])]
    else:
        texts = [_wrapped(a, ATOM) for a in args]
    text = written_form(op, texts, attrs)
    return Text(text, ATOM if _CALL.match(text) else PRODUCT)


def as_written(op: Op, args: list[Text], attrs: dict) -> Text:
    """The op as the table's form column writes it (written_form), operands bound tight."""
    text = written_form(op, [_wrapped(a, ATOM) for a in args], attrs)
    return Text(text, ATOM if _CALL.match(text) else PRODUCT)


class EdgeReader:
    """Every edge's contribution, as the consumer's VJP rule ran on the tape of formulas,
    written with the gradient that reached the consumer under a name of the caller's choice
    (`adj_t2` in the chain-rule column, `g` in --explain, 1 for a local derivative)."""

    def __init__(self, graph: Any) -> None:
        from .traced import formula_backward

        self.nodes = graph.nodes
        self.output = graph.output
        self.edges: dict[tuple[int, int], tuple[int, Any]] = {}  # (consumer, position) -> operand, value

        def on_edge(node: Any, position: int, operand: int, contribution: Any) -> None:
            self.edges[(node.index, position)] = (operand, contribution)

        self.tape, self.adjoints, self.opaque = formula_backward(graph, on_edge)
        # how a program node is written: by name here; readable.py writes unnamed ones' forms
        self.forward: Callable[[int], Text] = lambda index: name(self.nodes[index].name)

    def edge(self, consumer: int, position: int, gradient: Text) -> Text | None:
        """The contribution along one edge; None where the rule sent none."""
        found = self.edges.get((consumer, position))
        if found is None:
            return None
        return self._value(found[1], getattr(self.adjoints[consumer], "index", None), gradient)

    def _value(self, value: Any, g: int | None, gradient: Text) -> Text:
        if value is None:
            return number(0)
        index = getattr(value, "index", None)
        if index is None:  # a rule's plain array (zeros)
            flat = np.asarray(value).reshape(-1)
            if flat.size and (flat == flat[0]).all():
                return number(float(flat[0]))
            if flat.size > 8 or not np.all(np.isfinite(flat)):  # big, or computed from values
                return Text("...")
            array = np.asarray(value)
            if array.dtype.kind == "f" and np.all(np.isfinite(array)) and np.all(array == np.round(array)):
                array = array.astype(np.int64)  # index constants: tensor([0, 2]), as torch wants them
            return Text(f"tensor({array.tolist()})")
        return self._node(index, g, gradient)

    def _node(self, index: int, g: int | None, gradient: Text) -> Text:
        nodes, tape = self.nodes, self.tape
        if index == g:
            return gradient
        if index < len(nodes):
            return self.forward(index)
        if index in self.opaque:
            op_node, position, g_index = self.opaque[index]
            parts = [
                self._node(g_index, g, gradient).text,
                *(self._operand(o, g, gradient).text for o in op_node.operands),
            ]
            suffix = str(position) if op_node.op.arity > 1 else ""
            return Text(f"{op_node.op.name}_backward{suffix}({', '.join(parts)})")
        node = tape.nodes[index]
        if node.op is None:  # a constant a rule made: its number when it holds one
            return self._value(tape.values[index], None, gradient)
        pair = _outer_pair(tape, node)
        if pair is not None:  # the traced outer(a, b): a.unsqueeze(1) * b, as torch.outer
            a, b = (_filled(self._operand(o, g, gradient), tape.nodes[o].shape).text for o in pair)
            return Text(f"outer({a}, {b})")
        summed = _dropped_sum(tape, node)
        if summed is not None:  # at::sum_to's keepdim sum and view: one .sum(dims)
            source, dims = summed
            summed = _count(tape.nodes[source].shape, dims)
            return _method(self._operand(source, g, gradient), f"sum({_dims(dims)})", summed)
        shapes = tuple(tape.nodes[o].shape if isinstance(o, int) else () for o in node.operands)
        args = [self._operand(o, g, gradient) for o in node.operands]
        if not (node.op.elementwise or node.op.name in SPELLINGS) or node.op.name in _TENSORS_ONLY:
            args = [_filled(a, shape) for a, shape in zip(args, shapes)]  # ones(3) @ w, not 1 @ w
        return spell(node.op, args, node.attrs, shapes)

    def _operand(self, operand: Any, g: int | None, gradient: Text) -> Text:
        if isinstance(operand, int):
            return self._node(operand, g, gradient)
        return number(operand.value)


def chain_steps(graph: Any, seed: str = "1") -> list[str | None]:
    """Each node's adjoint as the sum of its consumers' contributions in node names, each
    consumer's adjoint by name: `adj_t1*(t1 > 0) + adj_t2*t1`. Terms in the order the
    consumers were written; None where no gradient flows; `seed` for the output.

    A contribution depends only on its op, operands and gradient, so each distinct kind of
    edge runs its rule once, on a one-node graph of placeholder names (EdgeReader), and the
    text is reused with the names filled in: a 10,000-statement program reads a few rules."""
    from .engine import edges, reaching

    nodes = graph.nodes
    reached = reaching(nodes, [graph.output])
    terms: list[list[Text]] = [[] for _ in nodes]
    for node, position, operand in edges(nodes, backward=False):
        if not reached[node.index]:
            continue
        text = _edge_text(graph, node, position)
        if text is not None:
            terms[operand].append(text)
    steps: list[str | None] = []
    for node in nodes:
        if node.index == graph.output:
            steps.append(seed)
        elif not reached[node.index] or not terms[node.index]:
            steps.append(None)
        else:
            total = terms[node.index][0]
            for term in terms[node.index][1:]:
                total = add(total, term)
            steps.append(total.text)
    return steps


_PLACE = "\x01"  # placeholder names: no program name holds this character


def _edge_text(graph: Any, node: Any, position: int) -> Text | None:
    """One edge's contribution, with the consumer's adjoint as adj_NAME."""
    nodes = graph.nodes
    operands = [nodes[o] if isinstance(o, int) else o for o in node.operands]
    key = (
        node.op.name,
        position,
        node.grad_fn,
        node.shape,
        repr(node.attrs) if node.attrs else "",
        tuple(
            (o.kind, o.shape, o.requires_grad, o.dtype) if hasattr(o, "kind") else ("number", repr(o.value))
            for o in operands
        ),
    )
    if REGISTRY.get(node.op.name) is not node.op:  # a script's own record: read it afresh
        template = _template(graph, node, position)
    elif key in _TEMPLATES:
        template = _TEMPLATES[key]
    else:
        if len(_TEMPLATES) > 10_000:  # a long-lived process (the Python API) stays bounded
            _TEMPLATES.clear()
        template = _TEMPLATES[key] = _template(graph, node, position)
    if template is None:
        return None
    text = template.text.replace(f"{_PLACE}g{_PLACE}", f"adj_{node.name}")
    text = text.replace(f"{_PLACE}out{_PLACE}", node.name)
    for i, operand in enumerate(operands):
        if hasattr(operand, "kind"):
            text = text.replace(f"{_PLACE}{i}{_PLACE}", operand.name)
    return Text(text, template.level, template.number, template.operator)


_TEMPLATES: dict[tuple, Text | None] = {}


def _template(graph: Any, node: Any, position: int) -> Text | None:
    """The edge's rule on a one-node graph whose names are placeholders."""
    from dataclasses import replace

    from .graph import CONST, LEAF, Graph

    inputs, remapped = [], []
    for i, operand in enumerate(node.operands):
        if not isinstance(operand, int):
            remapped.append(operand)
            continue
        source = graph.nodes[operand]
        kind = LEAF if source.requires_grad else CONST
        inputs.append(
            replace(
                source,
                index=len(inputs),
                name=f"{_PLACE}{i}{_PLACE}",
                kind=kind,
                op=None,
                operands=(),
                attrs={},
                grad_fn=None,
            )
        )
        remapped.append(len(inputs) - 1)
    op_node = replace(node, index=len(inputs), name=f"{_PLACE}out{_PLACE}", operands=tuple(remapped))
    small = Graph(graph.program, (*inputs, op_node), op_node.index)
    return EdgeReader(small).edge(op_node.index, position, name(f"{_PLACE}g{_PLACE}"))


# spelled ops whose operands must be tensors: a number there is written as one (ones(3) @ w)
_TENSORS_ONLY = frozenset(
    {"matmul", "select_backward", "slice_backward", "scatter", "scatter_add", "masked_fill_tensor"}
    | {"index_put", "index_put1"}
)


def _filled(text: Text, shape: Any) -> Text:
    """A number standing for a tensor, as that tensor where an op needs one: ones(3, 2)."""
    if text.number is None or not shape:
        return text
    sizes = _sizes(shape)
    if text.number in (0, 1):
        return Text(f"{'ones' if text.number else 'zeros'}({sizes})")
    return Text(f"full(({sizes},), {text.text})")


def _dropped_sum(tape: Any, node: Any) -> tuple[Any, tuple[int, ...]] | None:
    """(operand, dims) when `node` views away the kept dims of a keepdim sum (at::sum_to's
    record of a broadcast's adjoint), which a user writes as one .sum(dims)."""
    if node.op.name not in ("view", "_unsafe_view", "reshape") or not isinstance(node.operands[0], int):
        return None
    summed = tape.nodes[node.operands[0]]
    if (
        summed.op is None
        or summed.op.name not in ("sum", "sum_to")
        or not isinstance(summed.operands[0], int)
    ):
        return None
    source = summed.operands[0]
    before = tape.nodes[source].shape
    dims = tuple(i for i, (n, m) in enumerate(zip(before, summed.shape)) if m == 1 and n != 1)
    if len(before) != len(summed.shape) or not dims:
        return None
    kept = tuple(n for i, n in enumerate(summed.shape) if i not in dims)
    if kept != tuple(node.shape):
        return None
    return source, dims


def _outer_pair(tape: Any, node: Any) -> tuple[Any, Any] | None:
    """(a, b) when `node` is a.unsqueeze(1) * b of two vectors: outer(a, b), as MvBackward0's
    rule (grad.ger(vec)) reads."""
    if node.op.name != "mul" or not all(isinstance(o, int) for o in node.operands):
        return None
    first, second = (tape.nodes[o] for o in node.operands)
    if first.op is None or first.op.name != "unsqueeze" or first.attrs.get("dim") != 1:
        return None
    inner = first.operands[0]
    if not isinstance(inner, int) or len(tape.nodes[inner].shape) != 1 or len(second.shape) != 1:
        return None
    return inner, node.operands[1]
