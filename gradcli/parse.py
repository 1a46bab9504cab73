"""Program text -> a small tree of numbers, names and op applications; never executes it.

Python's own parser reads the text (after `^` becomes `**`), then every ast node is
checked against a whitelist built from the op registry. Nothing is evaluated here:
the result is plain data. The tree is walked with an explicit stack so that deep
programs cannot exhaust Python's recursion limit.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

from . import limits
from .errors import LimitError, ParseError
from .ops import BINARY, CONSTANTS, FUNCTIONS, METHODS, REGISTRY


@dataclass(frozen=True)
class Num:
    """A number literal (or pi/e); `text` keeps how it was written, for the symbolic form."""

    value: float
    text: str
    line: int
    column: int


@dataclass(frozen=True)
class Ref:
    """A use of a name: an input or an earlier statement's result."""

    name: str
    line: int
    column: int


@dataclass(frozen=True)
class Apply:
    """An op applied to operand expressions; `dim`/`keepdim` only for reductions."""

    op: str
    args: tuple[Expr, ...]
    line: int
    column: int
    dim: int | None = None
    keepdim: bool = False


Expr = Num | Ref | Apply


@dataclass(frozen=True)
class Statement:
    target: str | None  # None for a bare expression
    expr: Expr
    line: int


@dataclass(frozen=True)
class Program:
    """A parsed program: statements in order; the last one is the output."""

    source: str
    statements: tuple[Statement, ...]
    inputs: tuple[str, ...]  # free names, in order of first use
    multiline: bool

    @property
    def output_name(self) -> str | None:
        return self.statements[-1].target


_FRIENDLY = {
    "Lambda": "lambda",
    "ListComp": "list comprehension",
    "SetComp": "set comprehension",
    "DictComp": "dict comprehension",
    "GeneratorExp": "generator expression",
    "Subscript": "subscript (indexing)",
    "Slice": "slice",
    "JoinedStr": "f-string",
    "FormattedValue": "f-string",
    "Compare": "comparison",
    "BoolOp": "'and'/'or'",
    "IfExp": "conditional expression",
    "Tuple": "tuple",
    "List": "list",
    "Dict": "dict",
    "Set": "set",
    "NamedExpr": "assignment expression (:=)",
    "Starred": "starred argument",
    "Await": "await",
    "Yield": "yield",
    "YieldFrom": "yield",
    "Import": "import statement",
    "ImportFrom": "import statement",
    "AugAssign": "augmented assignment (+= and friends)",
    "AnnAssign": "annotated assignment",
    "FunctionDef": "function definition",
    "ClassDef": "class definition",
}
_OPERATORS = {
    "FloorDiv": "//",
    "Mod": "%",
    "LShift": "<<",
    "RShift": ">>",
    "BitOr": "|",
    "BitAnd": "&",
    "Invert": "~",
    "Not": "not",
}


class _Source:
    """The text as given, the text handed to Python's parser, and a map between their columns."""

    def __init__(self, source: str) -> None:
        self.original_lines = source.split("\n")
        self.lines: list[str] = []
        self.columns: list[list[int]] = []  # per line: parser column -> original column
        for text in self.original_lines:
            out: list[str] = []
            cols: list[int] = []
            stripped = len(text) - len(text.lstrip(" \t\r"))
            for i, ch in enumerate(text[stripped:], start=stripped):
                # `^` is power, as in maths; Python would read it as xor.
                piece = "**" if ch == "^" else ch
                out.append(piece)
                cols.extend([i] * len(piece))
            cols.append(len(text))
            self.lines.append("".join(out))
            self.columns.append(cols)
        self.multiline = sum(1 for t in self.original_lines if t.strip()) > 1

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def position(self, line: int, char_col: int) -> tuple[int, int]:
        """1-based (line, column) in the original text for a 0-based parser column."""
        line = max(1, min(line, len(self.lines)))
        cols = self.columns[line - 1]
        return line, cols[max(0, min(char_col, len(cols) - 1))] + 1

    def node_position(self, node: ast.AST) -> tuple[int, int]:
        line = getattr(node, "lineno", 1)
        byte_col = getattr(node, "col_offset", 0)
        text = self.lines[max(0, min(line, len(self.lines)) - 1)]
        char_col = len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))
        return self.position(line, char_col)


class _Parser:
    def __init__(self, source: str) -> None:
        self.src = _Source(source)

    def error(self, message: str, node: ast.AST | None = None, hint: str | None = None) -> ParseError:
        line, column = self.src.node_position(node) if node is not None else (None, None)
        return ParseError(message, line=line, column=column, multiline=self.src.multiline, hint=hint)

    # -- whitelist and conversion -------------------------------------------------

    def check_name(self, name: str, node: ast.AST) -> None:
        if name.startswith("__"):
            raise self.error(f"names starting with '__' are not allowed: '{name}'", node)

    def number(self, node: ast.Constant) -> Num:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            kind = "string" if isinstance(value, (str, bytes)) else repr(value)
            if isinstance(value, complex):
                kind = "complex number"
            if value is None or isinstance(value, bool):
                kind = repr(value)
            raise self.error(f"{kind} is not a number; only real numbers are allowed", node)
        try:
            as_float = float(value)
        except OverflowError:
            as_float = math.inf
        line, col = self.src.node_position(node)
        return Num(as_float, repr(value), line, col)

    def int_literal(self, node: ast.AST, what: str) -> int | None:
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        sign = 1
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            sign, node = -1, node.operand
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return sign * node.value
        raise self.error(f"{what} must be an integer literal", node)

    def bool_literal(self, node: ast.AST, what: str) -> bool:
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return node.value
        raise self.error(f"{what} must be True or False", node)

    def plan(self, node: ast.AST):
        """Validate one ast node; return (operand children, builder of its IR)."""
        line, col = self.src.node_position(node)
        if isinstance(node, ast.Constant):
            num = self.number(node)
            return [], lambda: num
        if isinstance(node, ast.Name):
            name = node.id
            self.check_name(name, node)
            if name in CONSTANTS:
                return [], lambda: Num(CONSTANTS[name], name, line, col)
            if name in FUNCTIONS:
                raise self.error(f"'{name}' is a function; call it, as in {name}(x)", node)
            return [], lambda: Ref(name, line, col)
        if isinstance(node, ast.BinOp):
            kind = type(node.op).__name__
            if kind not in BINARY:
                raise self.error(f"operator '{_OPERATORS.get(kind, kind)}' is not supported", node)
            return [node.left, node.right], lambda a, b: Apply(BINARY[kind], (a, b), line, col)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return [node.operand], lambda a: Apply("neg", (a,), line, col)
            if isinstance(node.op, ast.UAdd):
                return [node.operand], lambda a: a  # +x is x itself, as in PyTorch
            kind = type(node.op).__name__
            raise self.error(f"operator '{_OPERATORS.get(kind, kind)}' is not supported", node)
        if isinstance(node, ast.Attribute):
            self.check_name(node.attr, node)
            if node.attr == "T":
                return [node.value], lambda a: Apply("T", (a,), line, col)
            if node.attr in METHODS:
                raise self.error(f"'.{node.attr}' is a method; call it, as in x.{node.attr}()", node)
            raise self.error(
                f"unknown attribute '.{node.attr}' (only .T and the methods in 'gradcli ops')", node
            )
        if isinstance(node, ast.Call):
            return self.plan_call(node, line, col)
        kind = type(node).__name__
        raise self.error(f"{_FRIENDLY.get(kind, kind)} is not allowed in a gradcli program", node)

    def plan_call(self, node: ast.Call, line: int, col: int):
        func = node.func
        if isinstance(func, ast.Name):
            self.check_name(func.id, func)
            name, receiver = func.id, []
            if name not in FUNCTIONS:
                known = ", ".join(sorted(FUNCTIONS))
                raise self.error(f"unknown function '{name}'", func, hint=f"known functions: {known}")
        elif isinstance(func, ast.Attribute):
            self.check_name(func.attr, func)
            name, receiver = func.attr, [func.value]
            if name not in METHODS:
                known = ", ".join(sorted(METHODS))
                raise self.error(f"unknown method '.{name}()'", node, hint=f"known methods: {known}")
        else:
            raise self.error("only gradcli's functions and methods can be called", node)
        op = REGISTRY[name]
        positional = receiver + list(node.args)
        for arg in positional:
            if isinstance(arg, ast.Starred):
                raise self.error("starred arguments are not allowed", arg)
        operands = positional[: op.arity]
        extra = positional[op.arity :]
        given = len(positional)
        if len(operands) < op.arity or (extra and not op.reduction) or len(extra) > 2:
            expected = f"{op.arity}" + (" to 3" if op.reduction else "")
            raise self.error(f"{name}() takes {expected} argument(s) ({given} given)", node)
        attrs: dict = {}
        if op.reduction:
            keys = ["dim", "keepdim"]
            for key, value in zip(keys, extra):
                attrs[key] = value
        for kw in node.keywords:
            if kw.arg is None:
                raise self.error("'**' arguments are not allowed", kw.value)
            if not op.reduction or kw.arg not in ("dim", "keepdim"):
                raise self.error(f"{name}() got an unexpected keyword argument '{kw.arg}'", kw.value)
            if kw.arg in attrs:
                raise self.error(f"{name}() got multiple values for argument '{kw.arg}'", kw.value)
            attrs[kw.arg] = kw.value
        dim = self.int_literal(attrs["dim"], "dim") if "dim" in attrs else None
        keepdim = self.bool_literal(attrs["keepdim"], "keepdim") if "keepdim" in attrs else False
        return operands, lambda *args: Apply(name, tuple(args), line, col, dim, keepdim)

    def convert(self, root: ast.AST) -> Expr:
        """Post-order walk with an explicit stack (deep programs must not recurse)."""
        results: dict[int, Expr] = {}
        stack: list[tuple[ast.AST, object]] = [(root, None)]
        depth_of = {id(root): 1}
        while stack:
            node, planned = stack.pop()
            if planned is None:
                children, build = self.plan(node)
                depth = depth_of[id(node)]
                if depth > limits.MAX_DEPTH:
                    raise LimitError(
                        f"expression nesting depth exceeds the limit MAX_DEPTH={limits.MAX_DEPTH}",
                        hint="split it into statements: t1 = ...; t2 = ...",
                    )
                stack.append((node, (children, build)))
                for child in reversed(children):
                    depth_of[id(child)] = depth + 1
                    stack.append((child, None))
            else:
                children, build = planned
                results[id(node)] = build(*(results.pop(id(c)) for c in children))
        return results[id(root)]

    # -- statements -----------------------------------------------------------------

    def parse(self) -> Program:
        text = self.src.text
        if not text.strip():
            raise ParseError("the program is empty", hint='give an expression such as "(2*x)**3"')
        _check_paren_depth(text)
        try:
            module = ast.parse(text, mode="exec")
        except SyntaxError as exc:
            line, column = self.src.position(exc.lineno or 1, (exc.offset or 1) - 1)
            message = (exc.msg or "invalid syntax").replace(
                "unterminated string literal", "unterminated string"
            )
            raise ParseError(
                f"syntax error: {message}", line=line, column=column, multiline=self.src.multiline
            ) from None
        except (RecursionError, MemoryError):
            raise LimitError(
                "the program is nested too deeply for the parser",
                hint="split long chains into statements: t1 = ...; t2 = ...",
            ) from None
        limits.check(len(module.body), limits.MAX_NODES, "number of statements", "MAX_NODES")
        statements: list[Statement] = []
        assigned: dict[str, int] = {}
        inputs: dict[str, None] = {}
        for stmt in module.body:
            if isinstance(stmt, ast.Assign):
                if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                    raise self.error("assign to one plain name, as in y = 2*x", stmt)
                target = stmt.targets[0].id
                self.check_name(target, stmt.targets[0])
                if target in CONSTANTS or target in FUNCTIONS:
                    raise self.error(f"'{target}' is a built-in name and cannot be assigned", stmt.targets[0])
                if target in assigned:
                    raise self.error(
                        f"'{target}' is assigned twice; give each result its own name", stmt.targets[0]
                    )
                if target in inputs:
                    raise self.error(
                        f"'{target}' is used as an input before this assignment; rename one of them",
                        stmt.targets[0],
                    )
                expr_node = stmt.value
            elif isinstance(stmt, ast.Expr):
                target, expr_node = None, stmt.value
            else:
                kind = type(stmt).__name__
                raise self.error(
                    f"{_FRIENDLY.get(kind, kind + ' statement')} is not allowed; use NAME = EXPR or EXPR",
                    stmt,
                )
            expr = self.convert(expr_node)
            for name in _refs(expr):
                if name not in assigned:
                    inputs.setdefault(name)
            if target is not None:
                assigned[target] = len(statements)
            statements.append(Statement(target, expr, stmt.lineno))
        return Program(self.src.text, tuple(statements), tuple(inputs), self.src.multiline)


def _refs(expr: Expr):
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, Ref):
            yield e.name
        elif isinstance(e, Apply):
            stack.extend(reversed(e.args))


def _check_paren_depth(text: str) -> None:
    depth = deepest = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth -= 1
    if deepest > limits.MAX_NESTING:
        raise LimitError(
            f"parentheses nested {deepest} deep exceed the limit MAX_NESTING={limits.MAX_NESTING}"
        )


def parse_program(source: str) -> Program:
    """Parse and validate a program; raises ParseError/LimitError, never executes anything."""
    limits.check(len(source), limits.MAX_PROGRAM_CHARS, "program length in characters", "MAX_PROGRAM_CHARS")
    if "\x00" in source:
        raise ParseError("the program contains a NUL byte")
    return _Parser(source).parse()
