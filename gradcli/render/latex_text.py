"""LaTeX of the formulas gradcli writes in PyTorch's words (`X.T @ (2*y)`, `adj_t2.sum(0)`).

The readable formulas (readable.py) and the table's forms are Python expressions. They are
read with Python's own parser (never evaluated) and set as a textbook sets them, in the
order they were written: `@` and `outer` as matrix products (`X^\\top (2 y)`, `a b^\\top`), `*`
as a product (`\\odot` between tensors), a comparison as an indicator `[h > 0]`, `.sum(0)` as
a sum over that dim. Anything else is set in typewriter type as written, never dropped.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

# binding strengths, loosest first (as Python's)
_SUM, _PRODUCT, _UNARY, _POWER, _ATOM = range(5)

_FUNCTIONS = {
    "exp": r"\exp",
    "log": r"\log",
    "sin": r"\sin",
    "cos": r"\cos",
    "tan": r"\tan",
    "sinh": r"\sinh",
    "cosh": r"\cosh",
    "tanh": r"\tanh",
    "sigmoid": r"\sigma",
    "abs": r"\operatorname{abs}",
}
_COMPARE = {ast.Gt: ">", ast.Lt: "<", ast.GtE: r"\geq", ast.LtE: r"\leq", ast.Eq: "=", ast.NotEq: r"\neq"}
_SHAPE_ONLY = {"expand", "view", "reshape", "unsqueeze", "squeeze", "contiguous"}


def formula_latex(text: str, name: Callable[[str], str], tensors: Iterable[str] = ()) -> str:
    """The formula as LaTeX; `name` sets a name (`t_{1}`), `tensors` are the names of
    non-scalar nodes (a product of two tensors is elementwise: `\\odot`)."""
    try:
        tree = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return _verbatim(text)
    try:
        return _Printer(name, set(tensors)).latex(tree)[0]
    except RecursionError:
        return _verbatim(text)


def _verbatim(text: str) -> str:
    escaped = "".join("\\" + c if c in "#$%&_{}" else c for c in text)
    escaped = escaped.replace("~", r"\textasciitilde{}").replace("^", r"\textasciicircum{}")
    return rf"\texttt{{{escaped}}}"


class _Printer:
    def __init__(self, name: Callable[[str], str], tensors: set[str]) -> None:
        self.name, self.tensors = name, tensors

    def latex(self, node: ast.expr) -> tuple[str, int, bool]:
        """(LaTeX, binding strength, whether it is a tensor)."""
        if isinstance(node, ast.Name):
            return self.name(node.id), _ATOM, node.id in self.tensors
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool)
        ):
            return _number(node.value), _ATOM, False
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            text, level, tensor = self.latex(node.operand)
            return f"-{self._wrap(text, level, _UNARY)}", _UNARY, tensor
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            left, right = (self.latex(side) for side in (node.left, node.comparators[0]))
            body = f"{left[0]} {_COMPARE[type(node.ops[0])]} {right[0]}"
            return rf"\left[{body}\right]", _ATOM, left[2] or right[2]
        if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
            text, level, tensor = self.latex(node.value)
            return rf"{self._wrap(text, level, _ATOM)}^\top", _POWER, tensor
        if isinstance(node, ast.Call):
            return self._call(node)
        return _verbatim(ast.unparse(node)), _ATOM, True

    @staticmethod
    def _wrap(text: str, level: int, needed: int) -> str:
        return text if level >= needed else rf"\left({text}\right)"

    def _binary(self, node: ast.BinOp) -> tuple[str, int, bool]:
        (a, la, ta), (b, lb, tb) = self.latex(node.left), self.latex(node.right)
        tensor = ta or tb
        op = node.op
        if isinstance(op, (ast.Add, ast.Sub)):
            right = self._wrap(b, lb, _SUM + 1) if isinstance(op, ast.Sub) else b
            return f"{a} {'+' if isinstance(op, ast.Add) else '-'} {right}", _SUM, tensor
        if isinstance(op, ast.Div):
            return rf"\frac{{{a}}}{{{b}}}", _ATOM, tensor
        if isinstance(op, ast.Pow):
            base = self._wrap(a, la, _ATOM)
            return f"{{{base}}}^{{{b}}}" if "^" in base else f"{base}^{{{b}}}", _POWER, tensor
        if isinstance(op, ast.MatMult):
            return f"{self._wrap(a, la, _PRODUCT)} {self._wrap(b, lb, _PRODUCT + 1)}", _PRODUCT, tensor
        if isinstance(op, ast.Mult):
            joint = r" \odot " if ta and tb else (r" \cdot " if b[:1].isdigit() else " ")
            return f"{self._wrap(a, la, _PRODUCT)}{joint}{self._wrap(b, lb, _PRODUCT + 1)}", _PRODUCT, tensor
        if isinstance(op, ast.BitAnd):  # (a > 0) & (a < 1): both indicators
            return f"{a} {b}", _PRODUCT, tensor
        return _verbatim(ast.unparse(node)), _ATOM, tensor

    def _reduce(
        self, how: str, operand: tuple[str, int, bool], dims: list[ast.expr]
    ) -> tuple[str, int, bool]:
        """x.sum(0) as a sum over dim 0 (mean likewise); with no dim, of every element."""
        text, level, tensor = operand
        over = ", ".join(ast.unparse(d) for d in dims)
        symbol = r"\sum" if how == "sum" else r"\operatorname{mean}"
        below = f"_{{\\text{{dim }} {over}}}" if over else ""
        return f"{symbol}{below} {self._wrap(text, level, _POWER)}", _PRODUCT, bool(over) and tensor

    def _call(self, node: ast.Call) -> tuple[str, int, bool]:
        args = [self.latex(a) for a in node.args]
        tensor = any(t for _, _, t in args)
        if isinstance(node.func, ast.Attribute):  # a method: x.sum(0), g.expand(3)
            method = node.func.attr
            receiver, level, tensor = self.latex(node.func.value)
            if method in _SHAPE_ONLY:
                return receiver, level, tensor
            if method in ("sum", "mean"):
                return self._reduce(method, (receiver, level, tensor), node.args)
            if method == "indices" or not args and not node.keywords:
                return (
                    rf"{self._wrap(receiver, level, _ATOM)}.\operatorname{{{_escape(method)}}}",
                    _ATOM,
                    tensor,
                )
            inside = ", ".join([receiver, *(a for a, _, _ in args)])
            return rf"\operatorname{{{_escape(method)}}}\left({inside}\right)", _ATOM, True
        if not isinstance(node.func, ast.Name):
            return _verbatim(ast.unparse(node)), _ATOM, True
        function = node.func.id
        if function == "outer" and len(args) == 2:
            (a, la, _), (b, lb, _) = args
            return f"{self._wrap(a, la, _PRODUCT)} {self._wrap(b, lb, _ATOM)}^\\top", _PRODUCT, True
        if function in ("sum", "mean") and args:  # sum(t2), sum(x, 0): as the method
            return self._reduce(function, args[0], node.args[1:])
        if function == "sqrt" and len(args) == 1:
            return rf"\sqrt{{{args[0][0]}}}", _ATOM, tensor
        head = _FUNCTIONS.get(function, rf"\operatorname{{{_escape(function)}}}")
        inside = ", ".join(a for a, _, _ in args)
        return rf"{head}\left({inside}\right)", _ATOM, tensor


def _escape(word: str) -> str:
    return word.replace("_", r"\_")


def _number(value: float) -> str:
    if isinstance(value, int) or value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"
