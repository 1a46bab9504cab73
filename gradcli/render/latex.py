"""LaTeX of symbolic results, ready to paste into a paper or a slide.

Symbolic results travel as sympy-parsable text (`24*x**2`). They are read back into
sympy through a whitelist of Python's own syntax tree (numbers, names, + - * / **,
calls) and never through eval or sympify, then printed with sympy's LaTeX printer,
taught gradcli's tensor functions: matmul(A, B) is A B, t(A) is A^T, sum and mean
are written as such. `expression_latex` and `derivative_latex` are the reusable parts
(the jacobian and hessian commands print their entries with them).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import GradcliError
from ..results import formula_parts
from .safe_text import one_line

if TYPE_CHECKING:
    import sympy

    from ..results import GradResult

# Functions sympy prints in the engine's forms, by the name sstr() gives them.
_SYMPY_FUNCTIONS = [
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "exp",
    "log",
    "sqrt",
    "Abs",
    "sign",
    "Heaviside",
    "Max",
    "Min",
    "Piecewise",
]
_COMPARISONS = {ast.Gt: "Gt", ast.Lt: "Lt", ast.GtE: "Ge", ast.LtE: "Le"}
_CONSTANTS = {"pi": "pi", "E": "E", "oo": "oo", "zoo": "zoo", "nan": "nan"}
MATRIX_LIMIT = 6  # tensors up to 6x6 are written as matrices; bigger ones are left out


def parse_symbolic(text: str, names: Iterable[str] = ()) -> sympy.Expr:
    """A sympy expression from gradcli's symbolic text, without eval.

    `names` are the program's node names: they are always symbols, even where sympy
    would read a constant (a node called `E`).
    """
    import sympy as sp

    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise GradcliError(f"cannot read the symbolic form {text!r}") from None
    known = set(names)
    stack: list[tuple[ast.AST, bool]] = [(tree.body, False)]
    done: dict[int, Any] = {}
    while stack:  # post-order with an explicit stack: deep forms cannot hit the recursion limit
        node, ready = stack.pop()
        children = _children(node, text)
        if not ready and children:
            stack.append((node, True))
            stack.extend((child, False) for child in children)
            continue
        done[id(node)] = _build(sp, node, [done[id(c)] for c in children], known)
    return done[id(tree.body)]


def _children(node: ast.AST, text: str) -> list[ast.AST]:
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.keywords:
            raise GradcliError(f"cannot read the symbolic form {text!r}")
        return list(node.args)
    if isinstance(node, ast.Constant | ast.Name):
        return []
    if isinstance(node, ast.Tuple):  # Piecewise((a, a > 0), (exp(a) - 1, True))
        return list(node.elts)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARISONS:
        return [node.left, node.comparators[0]]
    raise GradcliError(f"cannot read the symbolic form {text!r}: {type(node).__name__} is not allowed")


def _build(sp: Any, node: ast.AST, args: list[Any], known: set[str]) -> Any:
    if isinstance(node, ast.Tuple):
        return tuple(args)
    if isinstance(node, ast.Compare):
        return getattr(sp, _COMPARISONS[type(node.ops[0])])(*args)
    if isinstance(node, ast.Constant) and node.value is True:  # Piecewise's otherwise-branch
        return sp.true
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise GradcliError(f"cannot read the symbolic constant {value!r}")
        return sp.Integer(value) if isinstance(value, int) else sp.Float(repr(value))
    if isinstance(node, ast.Name):
        if node.id not in known and node.id in _CONSTANTS:
            return getattr(sp, _CONSTANTS[node.id])
        return sp.Symbol(node.id, real=True)
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.USub):
            return -args[0]
        if isinstance(node.op, ast.UAdd):
            return args[0]
    if isinstance(node, ast.BinOp):
        a, b = args
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Div):
            return a / b
        if isinstance(node.op, ast.Pow):
            return a**b
        if isinstance(node.op, ast.BitAnd):  # a Piecewise condition: (a > -1) & (a < 1)
            return sp.And(a, b)
        if isinstance(node.op, ast.BitOr):
            return sp.Or(a, b)
    if isinstance(node, ast.Call):
        name = node.func.id  # type: ignore[attr-defined]
        if name in _SYMPY_FUNCTIONS:
            return getattr(sp, name)(*args)
        return sp.Function(name)(*args)  # tensor functions (sum, mean, matmul, t) stay opaque
    raise GradcliError(f"cannot read the symbolic form: {ast.dump(node)[:60]}")


def _printer() -> Any:
    from sympy.printing.latex import LatexPrinter

    class GradcliLatexPrinter(LatexPrinter):
        """sympy's printer, with gradcli's tensor functions in textbook notation."""

        def _print_Function(self, expr: Any, exp: Any = None) -> str:
            name = expr.func.__name__
            args = [self._operand(a) for a in expr.args]
            text = None
            if name == "matmul" and len(args) == 2:
                text = f"{args[0]} {args[1]}"
            elif name == "t" and len(args) == 1:
                # Braces keep t(t(A)) from becoming A^{T}^{T}, a LaTeX error.
                base = args[0] if expr.args[0].is_Atom else f"{{{args[0]}}}"
                text = f"{base}^{{T}}"
            elif name in ("sum_over", "mean") and args:
                operator = r"\sum" if name == "sum_over" else r"\operatorname{mean}"
                below = rf"_{{\text{{dim }} {self._print(expr.args[1])}}}" if len(args) > 1 else ""
                text = f"{operator}{below} {args[0]}"
            if text is None:
                return super()._print_Function(expr, exp)
            return rf"\left({text}\right)^{{{exp}}}" if exp else text

        def _print_Symbol(self, expr: Any, style: str = "plain") -> str:
            r"""A word is upright (`\mathrm{loss}`), as a textbook sets a named quantity; one
            letter (or a Greek one) is italic; digits stay a subscript (`W_{1}`, `t_{2}`)."""
            from sympy.printing.conventions import split_super_sub
            from sympy.printing.latex import greek_letters_set

            name, supers, subs = split_super_sub(expr.name)
            if len(name) <= 1 or name.lower() in greek_letters_set or not name.isalpha():
                return super()._print_Symbol(expr, style)
            text = rf"\mathrm{{{name}}}"
            if supers:
                text += "^{" + " ".join(supers) + "}"
            if subs:
                text += "_{" + " ".join(subs) + "}"
            return text

        def _operand(self, arg: Any) -> str:
            """Symbols, numbers and calls stand alone; sums and products get parentheses."""
            printed = self._print(arg)
            if arg.is_Atom or arg.is_Function:
                return printed
            return rf"\left({printed}\right)"

    return GradcliLatexPrinter()


def expression_latex(expr: str | sympy.Expr | None, names: Iterable[str] = ()) -> str:
    """LaTeX of a symbolic result given as text or sympy; `\\text{...}` when it was too large."""
    if expr is None:
        return r"\text{(too large to print)}"
    if isinstance(expr, str):
        expr = parse_symbolic(expr, names)
    return _printer().doprint(expr)


def name_latex(name: str) -> str:
    """A node name as LaTeX (`t1` -> `t_{1}`), as sympy writes symbols."""
    import sympy as sp

    return _printer().doprint(sp.Symbol(name))


def derivative_latex(output: str, *wrt: str) -> str:
    r"""`\frac{\partial out}{\partial x}`; more names give higher or mixed derivatives (Hessian).

    Repeated names are grouped as a textbook does: ("x", "x") is `\partial x^{2}`.
    """
    if not wrt:
        raise ValueError("derivative_latex needs at least one variable")
    order = len(wrt)
    top = r"\partial" + (f"^{{{order}}}" if order > 1 else "") + " " + name_latex(output)
    groups: list[list[str]] = []
    for name in wrt:
        if groups and groups[-1][0] == name:
            groups[-1].append(name)
        else:
            groups.append([name])
    bottom = " ".join(
        rf"\partial {name_latex(g[0])}" + (f"^{{{len(g)}}}" if len(g) > 1 else "") for g in groups
    )
    return rf"\frac{{{top}}}{{{bottom}}}"


def value_latex(value: np.ndarray | None) -> str | None:
    """A number, or a small tensor as a bmatrix; None when too big to be worth pasting."""
    if value is None:
        return None
    array = np.asarray(value, dtype=np.float64)

    def number(v: float) -> str:
        if np.isnan(v):
            return r"\mathrm{NaN}"
        if np.isinf(v):
            return r"\infty" if v > 0 else r"-\infty"
        return f"{v:.6g}"

    if array.ndim == 0:
        return number(float(array))
    if array.ndim > 2 or max(array.shape) > MATRIX_LIMIT:
        return None
    rows = array.reshape(1, -1) if array.ndim == 1 else array
    body = r" \\ ".join(" & ".join(number(float(v)) for v in row) for row in rows)
    return rf"\begin{{bmatrix}} {body} \end{{bmatrix}}"


def align_block(rows: list[tuple[str, str]], comment: str | None = None) -> str:
    """An align* environment, one `left &= right` row per pair."""
    lines = [f"% {comment}"] if comment else []
    lines.append(r"\begin{align*}")
    lines += [
        f"{left} &= {right}" + (r" \\" if i < len(rows) - 1 else "") for i, (left, right) in enumerate(rows)
    ]
    lines.append(r"\end{align*}")
    return "\n".join(lines)


def render(result: GradResult) -> str:
    """Each op node's form, then each leaf's gradient (with its value at the point)."""
    names = [n.name for n in result.nodes]
    if result.output.symbolic is None:
        raise GradcliError("--format latex needs the symbolic forms; drop --no-symbolic")
    from .latex_text import formula_latex

    tensors = [name for n in result.nodes if n.shape for name in (n.name, f"adj_{n.name}")]
    rows: list[tuple[str, str]] = []
    for node in result.nodes:
        if node.kind == "op" and node.symbolic is not None:
            written = node.written or node.symbolic  # the table's form: X @ W, relu(t2)
            right = formula_latex(written, name_latex, tensors)
            value = value_latex(node.value)
            rows.append((name_latex(node.name), right if value is None else f"{right} = {value}"))
    order = getattr(result, "order", 1)
    for leaf in result.leaves:
        lines = result.grad_readable.get(leaf.name)  # order N: the N-th derivative
        if lines:
            right = formula_latex(formula_parts(lines[0])[1], name_latex, tensors)
        else:
            right = expression_latex(result.grad_symbolic.get(leaf.name), names)
        value = value_latex(result.grads.get(leaf.name)) if result.numeric else None
        # --order N: the N-th derivative
        rows.append(
            (
                derivative_latex(result.output.name, *(leaf.name,) * order),
                right if value is None else f"{right} = {value}",
            )
        )
        for line in (lines or ())[1:]:  # the named pieces, each once
            target, text = formula_parts(line)
            row = (name_latex(target), formula_latex(text, name_latex, tensors))
            if row not in rows:
                rows.append(row)
    return align_block(rows, comment=f"gradcli grad: {one_line(result.expression)}")


def document(block: str) -> str:
    """A standalone LaTeX document around an align* block (amsmath; breqn-free, so pdflatex)."""
    return "\n".join(
        [
            r"\documentclass{article}",
            r"\usepackage[margin=2cm,landscape]{geometry}",
            r"\usepackage{amsmath,amssymb}",
            r"\begin{document}",
            block,
            r"\end{document}",
        ]
    )
