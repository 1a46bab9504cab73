"""`gradcli ops NAME`: one op's page, read from its registry record and by running its rule.

The spellings come from the tables the parser binds calls with (ops.TORCH_SPELLINGS and
friends, less what torch itself refuses); the double-backward nodes are what the op's VJP
records when it runs on traced tensors (gradcli.traced), as torch.autograd.grad(...,
create_graph=True) would record them; the example is a program that runs.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

# Inputs tried, in order, for an op no entry of EXAMPLES names: scalars, then vectors, then
# matrices, then values past 1 (acosh); the first that runs with finite values is the example.
# A non-elementwise op tries vectors first, so its rule shows a tensor's shape at work.
_SCALARS = {"x": 0.5, "y": 0.25, "z": 0.75}
_VECTORS = {"x": [0.5, 0.25, 0.75, 0.3], "y": [0.2, 0.6, 0.4, 0.9], "z": [0.7, 0.1, 0.3, 0.5]}
_MATRICES = {"x": [[0.5, 0.25], [0.75, 0.3]], "y": [[0.2, 0.6], [0.4, 0.9]], "z": [[0.7, 0.1], [0.3, 0.5]]}
_PAST_ONE = {"x": 1.5, "y": 2.5, "z": 3.5}
_TRIALS = (_SCALARS, _VECTORS, _MATRICES, _PAST_ONE)
_TENSOR_TRIALS = (_VECTORS, _MATRICES, _SCALARS, _PAST_ONE)
# Operand names where the syntax names none (cat4 ... stack8: past z, z's values)
_OPERANDS = ("x", "y", "z", "u", "v", "w", "p", "q")
_VECTOR = [0.5, 0.25, 0.75, 0.3]
_MATRIX = [[0.5, 0.25, 0.75], [0.3, 0.2, 0.6]]
# Ops whose example needs arguments no default gives (dim=, a shape) or an integer or bool
# operand (a const, as torch holds indices and masks): (program, at, const).
EXAMPLES: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "softmax": ("softmax(x, dim=0)", {"x": _VECTOR}, {}),
    "log_softmax": ("log_softmax(x, dim=0)", {"x": _VECTOR}, {}),
    "logsumexp": ("logsumexp(x, 0)", {"x": _VECTOR}, {}),
    "cumsum": ("cumsum(x, 0)", {"x": _VECTOR}, {}),
    "cumprod": ("cumprod(x, 0)", {"x": _VECTOR}, {}),
    "clamp": ("clamp(x, min=0.3, max=0.6)", {"x": _VECTOR}, {}),
    "clamp_min": ("x.clamp_min(0.4)", {"x": _VECTOR}, {}),
    "clamp_max": ("x.clamp_max(0.4)", {"x": _VECTOR}, {}),
    "reshape": ("x.reshape(2, 2)", {"x": _VECTOR}, {}),
    "view": ("x.view(2, 2)", {"x": _VECTOR}, {}),
    "unsqueeze": ("x.unsqueeze(0)", {"x": _VECTOR}, {}),
    "transpose": ("X.transpose(0, 1)", {"X": _MATRIX}, {}),
    "expand": ("x.expand(2, 4)", {"x": _VECTOR}, {}),
    "repeat": ("x.repeat(2)", {"x": _VECTOR}, {}),
    "flip": ("x.flip(0)", {"x": _VECTOR}, {}),
    "roll": ("x.roll(1, 0)", {"x": _VECTOR}, {}),
    "topk": ("torch.topk(x, 2)[0]", {"x": _VECTOR}, {}),
    "diagonal": ("X.diagonal()", {"X": _MATRIX}, {}),
    "trace": ("trace(X)", {"X": [[0.5, 0.25], [0.75, 0.3]]}, {}),
    "addmm": (
        "addmm(b, A, B)",
        {"b": [0.1, 0.2], "A": [[0.5, 0.25], [0.75, 0.3]], "B": [[1, 2], [3, 4]]},
        {},
    ),
    "bmm": ("bmm(A, B)", {"A": [[[0.5, 0.25], [0.75, 0.3]]], "B": [[[1, 2], [3, 4]]]}, {}),
    "where": (
        "torch.where(c, x, y)",
        {"x": _VECTOR, "y": [0.2, 0.6, 0.4, 0.9]},
        {"c": [True, False, True, False]},
    ),
    "masked_fill": ("x.masked_fill(m, 0.0)", {"x": _VECTOR}, {"m": [True, False, True, False]}),
    "masked_select": ("x.masked_select(m)", {"x": _VECTOR}, {"m": [True, False, True, False]}),
    "gather": ("x.gather(0, i)", {"x": _VECTOR}, {"i": [2, 0]}),
    "index_select": ("x.index_select(0, i)", {"x": _VECTOR}, {"i": [2, 0]}),
    "index_add": ("x.index_add(0, i, y)", {"x": _VECTOR, "y": [0.2, 0.6]}, {"i": [2, 0]}),
    "index_copy": ("x.index_copy(0, i, y)", {"x": _VECTOR, "y": [0.2, 0.6]}, {"i": [2, 0]}),
    "index_fill": ("x.index_fill(0, i, 0.5)", {"x": _VECTOR}, {"i": [2, 0]}),
    "index": ("x[[2, 0]]", {"x": _VECTOR}, {}),
    "index1": ("x[i]", {"x": _VECTOR}, {"i": [2, 0]}),
    "embedding": ("F.embedding(i, W)", {"W": _MATRIX}, {"i": [1, 0]}),
    "nll_loss": ("nll_loss(X, t)", {"X": _MATRIX}, {"t": [0, 2]}),
    "cross_entropy": ("F.cross_entropy(X, t)", {"X": _MATRIX}, {"t": [0, 2]}),
    "linear": ("F.linear(x, W, b)", {"x": [0.5, 0.25, 0.75], "W": _MATRIX, "b": [0.1, 0.2]}, {}),
    **{  # a number that shows in the rule
        f"{name}_scalar": (f"torch.ops.aten.{name}.Scalar(x, 2.0)", {"x": _VECTOR}, {})
        for name in ("mul", "add", "div")
    },
    "matmul": ("a @ b", {"a": _MATRIX, "b": [[0.2, 0.6], [0.4, 0.9], [0.7, 0.1]]}, {}),
}


@dataclass(frozen=True)
class Example:
    program: str
    at: dict[str, Any]
    const: dict[str, Any]
    output_shape: tuple[int, ...]

    def command(self) -> str:
        """The gradcli command a user can paste; a tensor output gets an upstream gradient of ones."""
        parts = ["gradcli", "grad", _quoted(self.program)]
        for option, values in (("--at", self.at), ("--const", self.const)):
            for name, value in values.items():
                parts += [option, _quoted(f"{name}={json.dumps(value, separators=(',', ':'))}")]
        if self.output_shape:
            parts += ["--gradient", _quoted(f"ones({','.join(map(str, self.output_shape))})")]
        return " ".join(parts)


def _quoted(text: str) -> str:
    """Shell quoting as a reader types it: double quotes where the text has anything special."""
    plain = all(c.isalnum() or c in "=._-" for c in text)
    return text if plain else '"' + text + '"'


def spellings(name: str) -> list[str]:
    """Every way a program may call the op: the operator, bare, torch., F., np. and method forms."""
    from ..ops import (
        COMPOSITES,
        FUNCTIONAL,
        FUNCTIONAL_SPELLINGS,
        NOT_IN_TORCH,
        NOT_METHODS,
        NUMPY_SPELLINGS,
        REGISTRY,
        TORCH_SPELLINGS,
    )

    op = REGISTRY.get(name)
    method = op.method if op is not None else COMPOSITES[name].torch.startswith("torch.Tensor.")
    names = sorted(k for k, s in TORCH_SPELLINGS.items() if s.op == name and not s.numbers)
    forms = []
    first = op.syntax.split(", ")[0].split(" or ")[0] if op is not None else ""
    if first and "(" not in first and "." not in first and first.count("[") == first.count("]"):
        forms.append(first)  # an operator: "a * b"
    forms += [f"{k}(...)" for k in names]
    forms += [f"torch.{k}(...)" for k in names if k not in NOT_IN_TORCH]
    forms += [
        f"F.{k}(...)"
        for k in sorted(FUNCTIONAL_SPELLINGS)
        if k in FUNCTIONAL and FUNCTIONAL_SPELLINGS[k].op == name
    ]
    syntax = op.syntax if op is not None else ""
    forms += [f"x.{k}(...)" for k in names if k not in NOT_METHODS and (method or f".{k}(" in syntax)]
    forms += [  # NumPy's spellings, where NumPy has the function
        f"np.{k}(...)"
        for k in sorted(NUMPY_SPELLINGS)
        if NUMPY_SPELLINGS[k].op == name and not NUMPY_SPELLINGS[k].numbers and callable(getattr(np, k, None))
    ]
    return list(dict.fromkeys(forms))


def example(name: str) -> Example | None:
    """A program using the op that runs (with finite values), or None where none is known."""
    from ..api import _prepare
    from ..autograd import forward
    from ..local_steps import _first_spelling, written_form
    from ..ops import COMPOSITES, REGISTRY

    if name in EXAMPLES:
        program, at, const = EXAMPLES[name]
        trials = [(program, at, const)]
    else:
        op = REGISTRY.get(name)
        composite = COMPOSITES.get(name)
        arity = op.arity if op is not None else composite.arity if composite is not None else 0
        if (
            arity == 0
            or arity > len(_OPERANDS)
            or (op is not None and (op.size_of is not None or op.grad_fn == "NotImplemented"))
        ):
            return None
        operands = list(_OPERANDS[:arity])
        if op is not None and len(placeholders := _first_spelling(op.syntax)[1]) == arity:
            operands = placeholders  # the syntax's own names: a + b, sin(x), A.T
        try:
            program = (
                written_form(op, operands, {p.name: p.default for p in op.params})
                if op is not None
                else f"{name}({', '.join(operands)})"
            )
        except Exception:  # noqa: BLE001 - a form that needs arguments: no generated example
            return None
        if op is not None and not op.differentiable:  # no gradient of its own: weigh a leaf with it
            program = f"x * ({program})"
        order = _TRIALS if op is None or op.elementwise else _TENSOR_TRIALS
        trials = [
            (program, {n: list(values.values())[min(i, 2)] for i, n in enumerate(operands)}, {})
            for values in order
        ]
    for program, at, const in trials:
        try:
            prepared = _prepare(program, at, const, "float64")
            values = forward(prepared.graph, prepared.arrays, prepared.dtype)
        except Exception:  # noqa: BLE001 - outside the op's domain or shapes: try the next inputs
            continue
        if np.all(np.isfinite(values[prepared.graph.output])):
            shape = tuple(prepared.graph.nodes[prepared.graph.output].shape)
            return Example(program, dict(at), dict(const), shape)
    return None


def double_backward(found: Example) -> list[str] | str:
    """The grad_fn names the op's VJP records on traced tensors (create_graph=True), in the
    order first recorded; a string says why there are none."""
    from ..api import _prepare
    from ..autograd import forward
    from ..traced import trace_backward

    prepared = _prepare(found.program, found.at, found.const, "float64")
    values = forward(prepared.graph, prepared.arrays, prepared.dtype)
    seed = np.ones(found.output_shape, dtype=prepared.dtype)
    try:
        tape, _ = trace_backward(prepared.graph, values, prepared.dtype, gradient=seed)
    except Exception as error:  # noqa: BLE001 - a rule that does not trace: say so, not fail
        return f"not traced: {error}"
    recorded = [
        node.grad_fn
        for node in tape.nodes[len(prepared.graph.nodes) :]
        if node.kind == "op" and node.grad_fn and node.requires_grad
    ]
    if not recorded:
        return "none: the gradient does not depend on the operands (the second derivative is 0)"
    return list(dict.fromkeys(recorded))


def vjp_rule(name: str, found: Example) -> list[str]:
    """The op's VJP on its example, as the rule ran on a tape of formulas (formula_text):
    `x: g*cos(x)`, one line per operand that gets a gradient, `g` the gradient reaching it.
    Generated, never stated: the same reading the chain-rule column shows."""
    from ..formula_text import name as named

    return _edges(name, found, named("g"), "{}: {}")


def _edges(name: str, found: Example, gradient: Any, line: str) -> list[str]:
    """The example's edges into the op's operands, with `gradient` reaching the op and the
    op's result written as its form (`tanh(x)`), as the leaf formulas write a made-up name."""
    from ..api import _prepare
    from ..readable import Composer

    graph = _prepare(found.program, found.at, found.const, "float64").graph
    node = next((n for n in graph.nodes if n.op is not None and n.op.name == name), None)
    if node is None:
        return []
    try:
        reader = Composer(graph).reader
    except Exception:  # noqa: BLE001 - a page shows what it can
        return []
    lines = []
    for position, operand in enumerate(node.operands):
        text = reader.edge(node.index, position, gradient)
        if isinstance(operand, int) and text is not None:
            lines.append(line.format(graph.nodes[operand].name, text.text))
    return lines


def local_derivatives(name: str, found: Example) -> list[str]:
    """An elementwise op's derivative in each operand: its VJP run with a gradient of 1 on a
    tape of formulas (`d/dx = cos(x)`, `d/dx = 1 - tanh(x)**2`)."""
    from ..formula_text import number

    return _edges(name, found, number(1), "d/d{} = {}")


def derivative(name: str, found: Example | None) -> str:
    """What `gradcli ops` shows as an op's derivative, generated from its record and rule,
    never stated beside it: an elementwise op's local derivative (`cos(x)`; `d/da = b; d/db =
    a`), any other op's VJP (`a: g @ b.T; b: a.T @ g`), or why there is none."""
    from ..ops import REGISTRY

    op = REGISTRY[name]
    if op.size_of is not None:
        return "no gradient: a Python int, read from the shape"
    if op.arity == 0:
        return "no gradient: a new tensor, made from numbers"
    if not op.differentiable:
        return "no gradient: " + ("a bool tensor" if op.gives_mask else "its result never requires grad")
    if op.grad_fn == "NotImplemented":
        return "none: torch has no derivative for it"
    if found is None:
        return "-"
    if op.elementwise:
        lines = local_derivatives(name, found)
        if len(lines) == 1:
            return lines[0].split(" = ", 1)[1]
        return "; ".join(lines) or "-"
    return "; ".join(vjp_rule(name, found)) or "-"


def lookup(written: str) -> str | None:
    """The registry name of what a user typed: `sigmoid`, `torch.sigmoid`, `F.relu`, `x.sum()`,
    `*`, `np.dot`; a module's name is looked up in that module's table, as a program's is."""
    from ..ops import (
        BINARY,
        COMPARISON_SYMBOLS,
        COMPOSITES,
        MODULES,
        OPERATOR_SYMBOLS,
        REGISTRY,
        TORCH_SPELLINGS,
    )

    text = written.strip().removesuffix("()").removesuffix("(...)")
    symbols = {
        "+": "Add",
        "-": "Sub",
        "*": "Mult",
        "/": "Div",
        "**": "Pow",
        "^": "Pow",
        **{v: k for k, v in OPERATOR_SYMBOLS.items()},
    }
    if text in symbols and symbols[text] in BINARY:
        return BINARY[symbols[text]]
    comparisons = {symbol: name for name, symbol in COMPARISON_SYMBOLS.items()}
    bitwise = {"&": "bitwise_and", "|": "bitwise_or", "~": "bitwise_not"}
    if text in comparisons or text in bitwise:
        return {**comparisons, **bitwise}[text]
    text = text.removeprefix("torch.Tensor.").removeprefix("x.")
    for prefix in sorted(MODULES, key=len, reverse=True):  # torch.nn.functional before torch
        if text.startswith(prefix + "."):
            name = text[len(prefix) + 1 :]
            spelling = MODULES[prefix].get(name)
            if spelling is not None:
                return spelling.op
            return name if prefix == "torch" and name in REGISTRY else None
    if text in REGISTRY or text in COMPOSITES:
        return text
    spelling = TORCH_SPELLINGS.get(text)
    return spelling.op if spelling is not None else None


def close_names(written: str) -> list[str]:
    """Names a typo may have meant (difflib), for the error line."""
    from ..ops import TORCH_SPELLINGS

    return difflib.get_close_matches(
        written.strip().rsplit(".", 1)[-1], sorted(TORCH_SPELLINGS), n=4, cutoff=0.6
    )


def op_page(name: str, record: dict[str, Any]) -> dict[str, Any]:
    """The op's `gradcli ops --format json` record, with its spellings, double-backward nodes
    and an example command."""
    from ..ops import REGISTRY

    found = example(name)
    nodes: list[str] | str = "no example to trace" if found is None else double_backward(found)
    if name in REGISTRY and not REGISTRY[name].differentiable:
        nodes = "none: its result never requires grad, so backward never reaches it"
    return {
        **record,
        "vjp": [] if found is None else vjp_rule(name, found),
        "spellings": spellings(name),
        "double_backward": nodes if isinstance(nodes, list) else [],
        "double_backward_note": None if isinstance(nodes, list) else nodes,
        "example": None if found is None else found.command(),
    }


def page_text(page: dict[str, Any], width: int) -> str:
    """The page as aligned text: a field name, then its value wrapped under itself."""
    import textwrap

    nodes = page["double_backward"]
    vjp = "; ".join(page["vjp"]) or "-"
    if vjp == page["derivative"]:
        vjp = "(the derivative above: g is the gradient reaching the result)"
    fields = [
        ("spellings", ", ".join(page["spellings"]) or page["syntax"]),
        ("syntax", page["syntax"]),
        ("grad_fn", ", ".join(page["grad_fns"]) or page["grad_fn"]),
        ("derivative", page["derivative"]),
        ("vjp (example)", vjp),
        ("domain", page["domain"]),
        ("double backward", ", ".join(nodes) if nodes else page["double_backward_note"]),
        ("example", page["example"] or "(none generated; gradcli ops --format json has the syntax)"),
    ]
    title = page["name"] + (f"  ({page['torch']})" if page["torch"] else "")
    lines = [title]
    room = max(20, width - 19)
    for key, value in fields:
        wrapped = textwrap.wrap(str(value), room, break_on_hyphens=False, break_long_words=False) or [""]
        lines.append(f"  {key:<17}{wrapped[0]}")
        lines += [" " * 19 + more for more in wrapped[1:]]
    lines.append("")
    lines.append(
        "double backward: the grad_fn nodes the VJP records when differentiated again "
        "(torch.autograd.grad(..., create_graph=True)), found by running it on traced tensors."
    )
    return "\n".join(lines[:-1] + textwrap.wrap(lines[-1], width)) + "\n"
