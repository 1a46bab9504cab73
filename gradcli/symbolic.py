"""Symbolic forms and adjoints of a graph, in sympy, built alongside the numeric ones.

Every node gets its form in terms of its operands' names (`z = y**3`) and its
adjoint in terms of node names (`dz/dy = 3*y**2`): the engine's backward walk runs the
VJP rules on a tape of formulas (traced.py without numbers), and the gradient graph
they record is read op by op with each record's own form (`read`, `_adjoints`), so no
derivative is stated here and torch's conventions at kinks hold. Tensors are written in elementwise notation (a name stands
for each element; `sum`, `mean`, `matmul` and `t` are opaque tensor functions), so
the work never grows with the number of tensor elements. Adjoints that grow past a
size limit are referred to by name (`adj_t5`) instead of being expanded, so deep
programs stay linear. sympy is imported only here, and only when asked for: big
programs (build_named) write their text from the op registry's templates without it.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from . import engine
from .graph import LEAF, OP, Graph, Literal, Node
from .ops import COMPARISON_SYMBOLS, REGISTRY, Op
from .program import Apply, Expr, Num

if TYPE_CHECKING:
    import sympy as sp

SUM = "sum_over"  # the opaque tensor sum; not `sum`, which sympy's parser reads as Python's
INLINE_LIMIT = 60  # tree size past which an adjoint is named rather than expanded
LEAF_FORM_LIMIT = 400  # tree size past which a gradient in leaf names is not printed


@dataclass(frozen=True)
class SymbolicResult:
    forms: list[sp.Expr | None]  # per node, in operand names; None for inputs
    adjoints: list[sp.Expr | None]  # per node, for a unit upstream gradient
    leaf_grads: dict[str, sp.Expr | None]  # per leaf, in leaf and const names


def _size_exceeds(expr: sp.Basic, limit: int) -> bool:
    import sympy as sp

    return any(count > limit for count, _ in enumerate(sp.preorder_traversal(expr), start=1))


def _tree_size(expr: sp.Basic) -> int:
    import sympy as sp

    return sum(1 for _ in sp.preorder_traversal(expr))


def literal_form(literal: Literal) -> sp.Expr:
    """The literal as written (`2`, `0.5`, `pi/2`), or its float when that would be huge."""
    try:
        return _literal(literal.expr, depth=0)
    except _TooBig:
        return _float(literal.value)


class _TooBig(Exception):
    pass


def _float(value: float) -> sp.Expr:
    import sympy as sp

    if math.isnan(value):
        return sp.nan
    if math.isinf(value):
        return sp.oo if value > 0 else -sp.oo
    if value == int(value) and abs(value) < 2**53:
        return sp.Integer(int(value))
    return sp.Float(value)


def _literal(expr: Expr, depth: int) -> sp.Expr:
    import sympy as sp

    if depth > 30:
        raise _TooBig
    if isinstance(expr, Num):
        if expr.text == "pi":
            return sp.pi
        if expr.text == "e":
            return sp.E
        if expr.text.lstrip("-").isdigit() and len(expr.text) < 20:
            return sp.Integer(int(expr.text))
        return _float(expr.value)
    assert isinstance(expr, Apply)
    op = REGISTRY[expr.op]
    if not op.elementwise:
        raise _TooBig  # sum(2) and friends: the number is clearer
    args = [_literal(a, depth + 1) for a in expr.args]
    if op.name == "pow":
        base, exponent = (float(a) if a.is_number and a.is_real else 0.0 for a in args)
        if abs(exponent) > 64 or abs(base) > 1e6:
            raise _TooBig  # keep sympy away from 9**9**9
    try:
        return op.sympy(sp, *args)
    except (ValueError, TypeError):  # sympy refuses some numbers (relu(nan)): the number itself
        raise _TooBig from None


def _form(op: Op, args: list[sp.Expr], shapes: tuple, attrs: dict) -> sp.Expr:
    import sympy as sp

    try:
        if op.elementwise:
            return op.sympy(sp, *args)
        return op.sympy(sp, *args, shapes=shapes, **attrs)
    except (ValueError, TypeError):  # sympy refuses some numbers (Max(x, nan)): the op by name
        return sp.Function(op.name)(*args)


def build(graph: Graph) -> SymbolicResult:
    """Forms, adjoints and per-leaf gradients of the graph's output."""
    import sympy as sp

    nodes = graph.nodes
    symbols = [sp.Symbol(n.name, real=True) for n in nodes]

    def operand_form(operand) -> sp.Expr:
        return symbols[operand] if isinstance(operand, int) else literal_form(operand)

    operand_forms: list[list[sp.Expr]] = [[] for _ in nodes]

    def form(node: Node, _: list) -> sp.Expr:
        args = operand_forms[node.index] = [operand_form(o) for o in node.operands]
        shapes = tuple(graph.operand_shape(o) for o in node.operands)
        return _form(node.op, args, shapes, node.attrs)

    # the forward walk over the symbolic domain, each op in its operands' names (inputs: None)
    forms: list[sp.Expr | None] = engine.forward(nodes, [None] * len(nodes), lambda node: None, form)

    adjoints = _adjoints(graph, symbols)

    try:
        leaf_grads = _leaf_gradients(graph, symbols, forms, adjoints)
    except RecursionError:  # a form too deep for sympy's recursive walks: too large to print
        leaf_grads = {leaf.name: None for leaf in graph.leaves}
    return SymbolicResult(forms, adjoints, leaf_grads)


def _adjoints(graph: Graph, symbols: list[sp.Symbol]) -> list[sp.Expr | None]:
    """Every node's adjoint in node names, for a unit upstream gradient: the VJP rules run
    on a tape of formulas and the gradient graph they record, read op by op (each record's
    own form). An adjoint past INLINE_LIMIT is referred to by name (adj_t5) where another
    adjoint uses it, so deep programs stay linear."""
    import sympy as sp

    from .traced import Traced

    nodes = graph.nodes
    from .traced import formula_backward

    tape, traced, opaque = formula_backward(graph)
    adjoint_of: dict[int, int] = {}  # tape node -> the forward node it is the adjoint of
    for node in nodes:
        found = traced[node.index]
        if isinstance(found, Traced) and found.index >= len(nodes):
            adjoint_of.setdefault(found.index, node.index)
    forms: dict[int, sp.Expr | None] = {}  # as a root reads it
    used: list[sp.Expr | None] = [None] * len(tape.nodes)  # as a consumer reads it: a big adjoint by name
    sizes: dict[int, int] = {}

    def read_node(node: Node, _: Any = None) -> sp.Expr | None:
        index = node.index
        if index < len(nodes):
            form, size = symbols[index], 1
        elif index in opaque:
            op_node, position, g = opaque[index]
            args = [
                used[g],
                *(symbols[o] if isinstance(o, int) else literal_form(o) for o in op_node.operands),
            ]
            name = f"{op_node.op.name}_backward" + (str(position) if op_node.op.arity > 1 else "")
            form = None if args[0] is None else sp.Function(name)(*args)
            size = 1 + sizes[g] + len(op_node.operands)
        elif node.kind != OP:
            form, size = uniform(tape.values[index]), 1
        else:
            args, size = [], 1
            for operand in node.operands:
                if isinstance(operand, int):
                    args.append(used[operand])
                    size += sizes[operand]
                else:
                    args.append(literal_form(operand))
            shapes = tuple(tape.nodes[o].shape if isinstance(o, int) else () for o in node.operands)
            form = None if any(a is None for a in args) else _read_form(node.op, args, shapes, node.attrs)
        forms[index], sizes[index] = form, size
        if index in adjoint_of and size > INLINE_LIMIT and form is not None:
            sizes[index] = 1
            return sp.Symbol(f"adj_{nodes[adjoint_of[index]].name}", real=True)
        return form

    engine.forward(tape.nodes, used, read_node, read_node)  # every kind of tape node: one reading
    result: list[sp.Expr | None] = []
    for node in nodes:
        found = traced[node.index]
        if found is None:
            result.append(None)
        elif isinstance(found, Traced):
            result.append(forms[found.index])
        else:
            result.append(uniform(found))
    return result


def _leaf_gradients(graph, symbols, forms, adjoints) -> dict[str, sp.Expr | None]:
    """Each leaf's adjoint rewritten in leaf and const names, when that stays small."""
    sizes: dict[int, int] = {}  # tree size of each inlined form, to refuse before building

    def read(node: Node) -> sp.Expr:
        sizes[node.index] = 1
        return symbols[node.index]

    def inline(node: Node, inlined: list) -> sp.Expr | None:
        parts = {symbols[o]: inlined[o] for o in node.inputs()}
        estimate = _tree_size(forms[node.index]) + sum(sizes.get(o, 0) for o in node.inputs())
        if any(v is None for v in parts.values()) or estimate > LEAF_FORM_LIMIT:
            return None  # deep chains stop here instead of recursing in sympy
        expr = forms[node.index].xreplace(parts)
        sizes[node.index] = _tree_size(expr)
        return expr

    # the forward walk over forms in leaf names: each op's form with its operands' substituted
    inlined = engine.forward(graph.nodes, [None] * len(graph.nodes), read, inline)
    substitution = {symbols[i]: e for i, e in enumerate(inlined) if graph.nodes[i].kind == OP}
    result: dict[str, sp.Expr | None] = {}
    for node in graph.nodes:
        if node.kind != LEAF:
            continue
        adjoint = adjoints[node.index]
        if adjoint is None:
            result[node.name] = None
            continue
        free = adjoint.free_symbols
        if any(s.name.startswith("adj_") for s in free) or any(substitution.get(s, 0) is None for s in free):
            result[node.name] = None
            continue
        expr = adjoint.xreplace({s: substitution[s] for s in free if s in substitution})
        result[node.name] = None if _size_exceeds(expr, LEAF_FORM_LIMIT) else expr
    return result


READ_LIMIT = 2_000  # tree size past which a gradient graph's formula is not printed


def read(graph: Graph, values: Sequence[Any], named: int, limit: int = READ_LIMIT) -> sp.Expr | None:
    """The formula of graph.output in the program's input names, or None past `limit`.

    `graph` is a gradient graph (traced.Tape): the registry ops the VJP rules recorded, on top
    of the program's own `named` nodes. Each node is read with its record's own form (the
    fused backward kernels' too), so a formula says what the rules computed, torch's
    conventions at kinks included (relu'' is 0, a `where` selects), and nothing is
    differentiated here. A constant a rule made is read as its number when it holds one
    value throughout (the upstream gradient's ones, a rule's zeros); any other makes the
    formula None.
    """
    import sympy as sp

    nodes = graph.nodes
    needed = engine.reaching(nodes, [graph.output], gradient=False)
    sizes = [1] * len(nodes)

    def read_input(node: Node) -> sp.Expr | None:
        return sp.Symbol(node.name, real=True) if node.index < named else uniform(values[node.index])

    def evaluate(node: Node, forms: list) -> sp.Expr | None:
        args: list[sp.Expr] = []
        for operand in node.operands:
            if isinstance(operand, int):
                args.append(forms[operand])
                sizes[node.index] += sizes[operand]
            else:
                args.append(literal_form(operand))
        if any(arg is None for arg in args) or sizes[node.index] > limit:
            return None
        shapes = tuple(graph.operand_shape(o) for o in node.operands)
        return _read_form(node.op, args, shapes, node.attrs)

    wanted = (node for node in nodes if needed[node.index])
    forms = engine.forward(wanted, [None] * len(nodes), read_input, evaluate)
    return forms[graph.output]


def uniform(value: Any) -> sp.Expr | None:
    """A rule's constant as one number, if it is one value throughout."""
    import numpy as np

    flat = np.asarray(value).reshape(-1)
    if flat.size == 0 or not (flat == flat[0]).all():
        return None
    return _float(float(flat[0]))


def _read_form(op: Op, args: list[sp.Expr], shapes: tuple, attrs: dict) -> sp.Expr:
    """_form, with the attrs a fused kernel's form reads (threshold=, alpha=); a number over
    zero (mean's g/0 of an empty tensor) is nan, not sympy's complex infinity."""
    import sympy as sp

    form = None
    if op.elementwise and attrs:
        with contextlib.suppress(ValueError, TypeError):
            form = op.sympy(sp, *args, **attrs)
    if form is None:
        form = _form(op, args, shapes, attrs)
    return sp.nan if form is sp.zoo else form


def parse_names() -> dict[str, Any]:
    """The functions a formula's text names that evaluate (where, gt, eq, ...), for
    sympy.parse_expr(text, local_dict=parse_names()) to read grad_symbolic back faithfully."""
    from .ops.core import _FOLDS, _folding

    return {name: _folding(name) for name in _FOLDS}


def to_text(expr: sp.Expr | str | None) -> str | None:
    if expr is None or isinstance(expr, str):  # build_named's forms are text already
        return expr
    return sstr(expr)


@cache
def _printer() -> Any:
    from sympy.printing.str import StrPrinter

    class Printer(StrPrinter):
        """sympy's str printer, with a double printed as repr prints it.

        sympy shows a 53-bit Float with 15 digits, so 10*(x + 2**0.5) became
        `10*x + 14.142135623731`, a constant 3e-15 away from the double it holds."""

        def _print_Float(self, expr: Any) -> str:
            if expr._prec == 53:
                return repr(float(expr))
            return super()._print_Float(expr)

    return Printer()


def sstr(expr: Any) -> str:
    """A sympy expression as sympy.sstr prints it, every double with all its digits."""
    return _printer().doprint(expr)


@cache
def _torch_printer() -> Any:
    from sympy.printing.str import StrPrinter

    base = _printer()

    class TorchPrinter(type(base)):  # type: ignore[misc]
        """sympy's forms in PyTorch's words: Max(0, x) is relu(x), a Piecewise that masks is
        a product with a comparison, matmul(a, b) is a @ b, sum_over(e, 0) is e.sum(0)."""

        def _print_Piecewise(self, expr: Any) -> str:
            import sympy as sp

            if len(expr.args) == 2 and expr.args[1].cond == sp.true:
                (a, cond), (b, _) = expr.args
                if a == 0 and hasattr(cond, "negated"):
                    return self._masked(b, cond.negated)
                if b == 0:
                    return self._masked(a, cond)
                return f"where({self._print(cond)}, {self._print(a)}, {self._print(b)})"
            return StrPrinter._print_Piecewise(self, expr)

        def _masked(self, value: Any, cond: Any) -> str:
            """value*(cond); relu(z) > 0 is z > 0 (relu's rule reads its result)."""
            import sympy as sp

            relu = isinstance(cond, sp.StrictGreaterThan) and cond.rhs == 0 and isinstance(cond.lhs, sp.Max)
            if relu and len(cond.lhs.args) == 2 and 0 in cond.lhs.args:
                cond = sp.StrictGreaterThan([a for a in cond.lhs.args if a != 0][0], 0)
            mask = f"({self._print(cond)})"
            return mask if value == 1 else f"{self.parenthesize(value, 50)}*{mask}"

        def _print_Max(self, expr: Any) -> str:
            args = list(expr.args)
            if len(args) == 2 and 0 in args:
                other = args[1] if args[0] == 0 else args[0]
                return f"relu({self._print(other)})"
            return self._fold("maximum", args)

        def _print_Min(self, expr: Any) -> str:
            return self._fold("minimum", list(expr.args))

        def _fold(self, name: str, args: list) -> str:
            text = self._print(args[0])
            for arg in args[1:]:
                text = f"{name}({text}, {self._print(arg)})"
            return text

        def _print_Heaviside(self, expr: Any) -> str:
            return f"({self._print(expr.args[0])} > 0)"

        def _print_Abs(self, expr: Any) -> str:
            return f"abs({self._print(expr.args[0])})"

        def _print_Function(self, expr: Any) -> str:
            name, args = type(expr).__name__, expr.args
            if name == "__mask":
                return f"({self._print(args[0])})"
            if name == "matmul" and len(args) == 2:
                return f"{self.parenthesize(args[0], 50)} @ {self.parenthesize(args[1], 51)}"
            if name == "t" and len(args) == 1:
                return f"{self._atom(args[0])}.T"
            if name == SUM:
                dims = ", ".join(self._print(a) for a in args[1:])
                return f"{self._atom(args[0])}.sum({dims})"
            if name in COMPARISON_SYMBOLS and len(args) == 2:
                return f"({self._print(args[0])} {COMPARISON_SYMBOLS[name]} {self._print(args[1])})"
            return super()._print_Function(expr)

        def _atom(self, expr: Any) -> str:
            text = self._print(expr)
            return text if _is_atom(text) else f"({text})"

    return TorchPrinter()


def torch_text(expr: Any) -> str:
    """A sympy form in PyTorch's vocabulary (`2*(x > 0)`, `X.T @ g`, `relu(x)`), not sympy's
    internals (`Piecewise`, `Max(0, x)`, `matmul(t(X), g)`); every double with all its digits."""
    return _torch_printer().doprint(expr)


SIMPLIFY_SIZE = 80  # tree size past which no rewrite is tried (factor's cost grows fast)


def rewrites(expr: Any, trig: bool = False) -> list[str]:
    """sympy's standard forms of a formula in torch_text: as it is, then factored and
    cancelled, and with `trig` trigsimp's (2*sin(x)*cos(x) is sin(2*x)). Each is tried only
    where it can help and while the tree is small: factor and cancel take milliseconds,
    trigsimp tens of them, so sin(a*b) + a*b*cos(a*b) is left as it is (a Hessian of 30
    leaves has 900 entries)."""
    import sympy as sp

    found = [torch_text(expr)]
    size = _tree_size(expr)
    polynomial = not expr.atoms(sp.Function)
    denominator = any(power.exp.is_negative for power in expr.atoms(sp.Pow))
    if expr.atoms(sp.Add) and (polynomial or denominator) and size <= SIMPLIFY_SIZE:
        for rewrite in (lambda e: sp.factor_terms(sp.cancel(e)), sp.factor, sp.cancel):
            try:
                found.append(torch_text(rewrite(expr)))
            except (TypeError, ValueError, NotImplementedError, RecursionError, sp.PolynomialError):
                continue
    circular = expr.atoms(sp.sin, sp.cos, sp.tan)
    if trig and len(circular) > 1 and circular == expr.atoms(sp.Function) and size <= TRIG_SIZE:
        with contextlib.suppress(TypeError, ValueError, NotImplementedError, RecursionError):
            found.append(torch_text(sp.trigsimp(expr)))
    return found


TRIG_SIZE = 20  # tree size past which trigsimp (tens of milliseconds) is not tried


def simplest(expr: Any) -> str:
    """The shortest of rewrites(expr); the first of equals (factored before cancelled)."""
    return min(rewrites(expr), key=len)


# ---------------------------------------------------------------- named adjoints for big programs


def _is_atom(text: str) -> bool:
    """A name, an unsigned number or one call `f(...)`: safe to multiply without parentheses."""
    if text.isidentifier() or text.replace(".", "", 1).isdigit():
        return True
    head, paren, _ = text.partition("(")
    if not (paren and head.isidentifier() and text.endswith(")")):
        return False
    depth = 0
    for i in range(len(head), len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i == len(text) - 1  # the call's own parenthesis closes last
    return False


def _slot_text(text: str) -> str:
    """An operand as it may stand anywhere in a template: atoms bare, the rest in parentheses."""
    return text if _is_atom(text) else f"({text})"


@dataclass(frozen=True)
class NamedResult:
    """Forms and adjoints as text, each adjoint in terms of its consumers' adjoints (adj_NAME)."""

    forms: list[str | None]
    adjoints: list[str | None]
    leaf_grads: dict[str, None]  # in leaf names they would be far too large to print


def build_named(graph: Graph) -> NamedResult:
    """Per-node symbolic output in linear time, for programs too big for sympy node by node.

    Forms from the registry's text templates (Op.text; sympy only for tensor-level ops);
    every adjoint as the sum of its consumers' contributions, each in terms of adj_CONSUMER:
    the chain-rule text of formula_text.chain_steps, the rules' own reading.
    """
    from .formula_text import chain_steps

    nodes = graph.nodes
    names = [n.name for n in nodes]

    def operand_text(operand) -> str:
        if isinstance(operand, int):
            return names[operand]
        written = operand.expr.text if isinstance(operand.expr, Num) else repr(operand.value)
        return _slot_text(written)

    def form(node: Node, _: list) -> str:
        args = [operand_text(o) for o in node.operands]
        if node.op.elementwise and node.op.text is not None:
            return node.op.text.format(*args)
        import sympy as sp

        # Tensor-level ops never take a number operand (those fold or fail), so args are names.
        shapes = tuple(graph.operand_shape(o) for o in node.operands)
        return sstr(_form(node.op, [sp.Symbol(a) for a in args], shapes, node.attrs))

    forms: list[str | None] = engine.forward(nodes, [None] * len(nodes), lambda node: None, form)
    adjoints = chain_steps(graph)
    return NamedResult(forms, adjoints, {leaf.name: None for leaf in graph.leaves})
