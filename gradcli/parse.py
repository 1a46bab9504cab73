"""Program text -> a small tree of numbers, names and op applications; never executes it.

Python's own parser reads the text (after `^` becomes `**`), then every ast node is
checked against a whitelist built from the op registry. Nothing is evaluated here:
the result is plain data. The tree is walked with an explicit stack so that deep
programs cannot exhaust Python's recursion limit.
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from collections.abc import Callable

from . import limits
from .binding import (
    ALWAYS_PAIRED,
    ELEMENTWISE_PICK,
    PICKED,
    CallBinding,
    dotted_name,
    float_call,
    has_dim,
    has_other,
)
from .errors import LimitError, ParseError
from .ops import (
    BINARY,
    BITWISE,
    COMPARISONS,
    COMPOSITES,
    CONSTANTS,
    FUNCTIONS,
    MODULES,
    OPERATOR_SYMBOLS,
    TORCH_SPELLINGS,
)
from .program import (
    Apply,
    Expr,
    Num,
    Program,
    Ref,
    Statement,
)

_FRIENDLY = {
    "Lambda": "lambda",
    "ListComp": "list comprehension",
    "SetComp": "set comprehension",
    "DictComp": "dict comprehension",
    "GeneratorExp": "generator expression",
    "Slice": "slice",
    "JoinedStr": "f-string",
    "FormattedValue": "f-string",
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


def returns_pair(name: str, call: ast.Call, receiver: list) -> bool:
    """Whether this call returns torch's (values, indices): x.sort(), x.topk(k), x.max(dim)."""
    if name in ALWAYS_PAIRED:
        return True
    return name in ELEMENTWISE_PICK and has_dim(call, receiver) and not has_other(call, receiver)


def _picked_part(node: ast.AST) -> tuple[ast.Call, int] | None:
    """(the call, 0 or 1) for `call.values`, `call.indices`, `call[0]`, `call[1]` of a call."""
    if (
        isinstance(node, ast.Attribute)
        and node.attr in ("values", "indices")
        and isinstance(node.value, ast.Call)
    ):
        return node.value, 0 if node.attr == "values" else 1
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Call)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value in (0, 1)
        and type(node.slice.value) is int
        and isinstance(node.value.func, (ast.Attribute, ast.Name))
        and (node.value.func.attr if isinstance(node.value.func, ast.Attribute) else node.value.func.id)
        in PICKED
    ):
        return node.value, node.slice.value
    return None


def _unpacks_a_pick(stmt: ast.Assign) -> bool:
    target = stmt.targets[0] if len(stmt.targets) == 1 else None
    return (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and all(isinstance(e, ast.Name) for e in target.elts)
        and _picked_part(ast.Subscript(value=stmt.value, slice=ast.Constant(0), ctx=ast.Load())) is not None
    )


def _unpacks_a_shape(stmt: ast.Assign) -> ast.AST | None:
    """The tensor of `B, T, C = x.shape` (or `= x.size()`), or None for any other assignment."""
    target = stmt.targets[0] if len(stmt.targets) == 1 else None
    if not isinstance(target, ast.Tuple) or not all(isinstance(e, ast.Name) for e in target.elts):
        return None
    value = stmt.value
    if isinstance(value, ast.Attribute) and value.attr == "shape":
        return value.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "size"
        and not value.args
        and not value.keywords
    ):
        return value.func.value
    return None


# Every BinOp, Call and unary minus has one of these characters of its own (`^` is read
# as `**` before parsing), so their count bounds the number of operations from above.
_OPERATION_CHARACTERS = "+-*/@%<>|&("
_IN_PLACE = {"Add", "Sub", "Mult", "Div", "Pow"}  # +=, -=, *=, /=, **= (PyTorch has no in-place @)


# Characters from maths text and word processors, and what Python spells them as.
_LOOKALIKES = {
    "\u2212": "-",  # minus sign
    "\u2013": "-",  # en dash
    "\u00d7": "*",  # multiplication sign
    "\u22c5": "*",  # dot operator
    "\u00b7": "*",  # middle dot
    "\u00f7": "/",  # division sign
    "\u00b2": "**2",
    "\u00b3": "**3",
    "\u03c0": "pi",
}
_NUMBER_THEN_NAME = re.compile(r"(?<![\w.])(\d+(?:\.\d*)?)(?![eE][+-]?\d|[xXoObB]\w|[jJ]\b)([A-Za-z_]\w*)")
_CALL_WITHOUT_PARENS = re.compile(r"\b([a-z]\w*)[ \t]+([A-Za-z_][\w.]*|\d[\d.]*)")


def near_miss(text: str, *, names: bool = True) -> str | None:
    """The fix for a common slip in text Python's parser refused (2x, x², sin x, −x), or None.

    names=False (a VALUE, which holds no names) suggests only the lookalike characters."""
    fixed = "".join(_LOOKALIKES.get(ch, ch) for ch in text)
    changed = [ch for ch in dict.fromkeys(text) if ch in _LOOKALIKES]
    if names:
        fixed = _NUMBER_THEN_NAME.sub(lambda m: f"{m.group(1)}*{m.group(2)}", fixed)
        fixed = _CALL_WITHOUT_PARENS.sub(
            lambda m: f"{m.group(1)}({m.group(2)})" if m.group(1) in FUNCTIONS else m.group(0), fixed
        )
    if fixed == text:
        return None
    spelled = "; ".join(f"write {_LOOKALIKES[ch]!r} for {ch!r}" for ch in changed)
    return f"did you mean {fixed!r}?" + (f" ({spelled})" if spelled else "")


class _Source:
    """The text as given, the text handed to Python's parser, and a map between their columns.

    Each line loses its leading blanks (so indentation is never an error) and `^`
    becomes `**`. Most lines are ASCII without `^`, where a column moves by a fixed
    offset; only the other lines pay for a per-character map, built on first use.
    """

    def __init__(self, source: str) -> None:
        self.original_lines = source.split("\n")
        self.lines: list[str] = []
        self.offsets: list[int] = []  # leading blanks removed from each line
        self._maps: dict[int, list[int]] = {}  # line index -> parser column -> original column
        # Per line, the offset when ast columns map to columns by addition alone (ASCII, no `^`).
        self._shifts: list[int | None] = []
        for text in self.original_lines:
            body = text.lstrip(" \t\r")
            self.offsets.append(len(text) - len(body))
            # `^` is power, as in maths; Python would read it as xor.
            self.lines.append(body.replace("^", "**") if "^" in body else body)
            simple = body.isascii() and "^" not in body
            self._shifts.append(self.offsets[-1] + 1 if simple else None)
        self.multiline = sum(1 for t in self.original_lines if t.strip()) > 1

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def _column_map(self, index: int) -> list[int]:
        cols = self._maps.get(index)
        if cols is None:
            original = self.original_lines[index]
            offset = self.offsets[index]
            cols = []
            for i, ch in enumerate(original[offset:], start=offset):
                cols.extend([i] * (2 if ch == "^" else 1))
            cols.append(len(original))
            self._maps[index] = cols
        return cols

    def position(self, line: int, char_col: int) -> tuple[int, int]:
        """1-based (line, column) in the original text for a 0-based parser column."""
        line = max(1, min(line, len(self.lines)))
        index = line - 1
        char_col = max(0, min(char_col, len(self.lines[index])))
        if "^" not in self.original_lines[index]:
            return line, self.offsets[index] + char_col + 1
        return line, self._column_map(index)[char_col] + 1

    def node_position(self, node: ast.AST) -> tuple[int, int]:
        line = getattr(node, "lineno", 1)
        byte_col = getattr(node, "col_offset", 0)
        if 0 < line <= len(self._shifts):  # called for every parse node: the common case first
            shift = self._shifts[line - 1]
            if shift is not None:
                return line, shift + byte_col
        text = self.lines[max(0, min(line, len(self.lines)) - 1)]
        if not text.isascii():  # ast columns count UTF-8 bytes, users count characters
            byte_col = len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))
        return self.position(line, byte_col)


class _Parser(CallBinding):
    def __init__(self, source: str, names: frozenset[str] = frozenset()) -> None:
        self.src = _Source(source)
        self.operations = 0  # Apply nodes made so far, checked against MAX_NODES
        # Names the user bound (inputs, assignments so far) that hide a constant: `e`, `pi`.
        self.shadowed: set[str] = set(names)
        # Names used inside size arguments (`x.view(n.shape[0], -1)`): inputs too.
        self.attr_names: list[str] = []

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
        except OverflowError:  # a huge integer literal is inf, as 9**9**9 folds to inf
            as_float = math.inf
        # repr() of an integer past 4,300 digits raises; such a literal is its float.
        text = repr(value) if isinstance(value, float) or value.bit_length() <= 1024 else repr(as_float)
        line, col = self.src.node_position(node)
        return Num(as_float, text, line, col)

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
            if name in CONSTANTS and name not in self.shadowed:
                return [], lambda: Num(CONSTANTS[name], name, line, col)
            return [], lambda: Ref(name, line, col)  # `t` or `e` as a variable, as Python allows
        if isinstance(node, ast.BinOp):
            kind = type(node.op).__name__
            if kind in BITWISE:  # a & b, a | b on bool tensors: torch's bitwise ops (no grad)
                composite = COMPOSITES[BITWISE[kind]]
                return [node.left, node.right], lambda a, b: self.composed(composite, (a, b), {}, line, col)
            if kind not in BINARY:
                raise self.error(f"operator '{OPERATOR_SYMBOLS.get(kind, kind)}' is not supported", node)
            return [node.left, node.right], lambda a, b: Apply(BINARY[kind], (a, b), line, col)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return [node.operand], lambda a: Apply("neg", (a,), line, col)
            if isinstance(node.op, ast.UAdd):
                return [node.operand], lambda a: a  # +x is x itself, as in PyTorch
            if isinstance(node.op, ast.Invert):  # ~mask
                composite = COMPOSITES[BITWISE["Invert"]]
                return [node.operand], lambda a: self.composed(composite, (a,), {}, line, col)
            kind = type(node.op).__name__
            raise self.error(f"operator '{OPERATOR_SYMBOLS.get(kind, kind)}' is not supported", node)
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "shape"
        ):  # x.shape[0]: a size, the number torch's Python int is
            index = self.int_literal(node.slice, "a shape index")
            return [node.value.value], lambda a: Apply("size", (a,), line, col, (("dim", index),))
        picked = _picked_part(node)
        if picked is not None:  # x.max(1).values, torch.min(x, 0)[1]
            call, part = picked
            return self.plan_call(call, line, col, part=part)
        if isinstance(node, ast.Attribute):
            self.check_name(node.attr, node)
            if dotted_name(node.value) in MODULES and node.attr in CONSTANTS:  # math.pi, np.e
                return [], lambda: Num(CONSTANTS[node.attr], node.attr, line, col)
            if node.attr in ("T", "mT"):
                return [node.value], lambda a: Apply(node.attr, (a,), line, col)
            if node.attr == "ndim":
                return [node.value], lambda a: Apply("dim", (a,), line, col)
            if node.attr == "shape":
                raise self.error("x.shape is a torch.Size here; take one size: x.shape[0]", node)
            if node.attr in TORCH_SPELLINGS:
                raise self.error(f"'.{node.attr}' is a method; call it, as in x.{node.attr}()", node)
            raise self.error(
                f"unknown attribute '.{node.attr}' (only .T, .mT and the methods in 'gradcli ops')", node
            )
        if isinstance(node, ast.Call):
            number = float_call(node)
            if number is not None:  # float('-inf'): a number, as Python reads it
                text = ast.get_source_segment(self.src.text, node) or repr(number)
                return [], lambda: Num(number, text, line, col)
            return self.plan_call(node, line, col)
        if isinstance(node, ast.Subscript):
            return self.plan_subscript(node, line, col)
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                raise self.error("compare two things at a time: (a < b) & (b < c) is not supported", node)
            kind = type(node.ops[0]).__name__
            if kind not in COMPARISONS:
                raise self.error(f"'{kind}' comparisons are not supported", node)
            name = COMPARISONS[kind]
            return [node.left, node.comparators[0]], lambda a, b: Apply(name, (a, b), line, col)
        kind = type(node).__name__
        raise self.error(f"{_FRIENDLY.get(kind, kind)} is not allowed in a gradcli program", node)

    def convert(self, root: ast.AST) -> tuple[Expr, list[str]]:
        """The expression, and the names it uses in order of appearance.

        A post-order walk with an explicit stack (deep programs must not recurse).
        Converted operands wait on a value stack, first operand deepest, so building a
        node takes the top `arity` values.
        """
        values: list[Expr] = []
        names: list[str] = []
        # (ast node, depth, build, arity); build is None until the node has been planned.
        stack: list[tuple[ast.AST, int, Callable[..., Expr] | None, int]] = [(root, 1, None, 0)]
        while stack:
            node, depth, build, arity = stack.pop()
            if build is None:
                children, build = self.plan(node)
                if depth > limits.MAX_DEPTH:
                    raise LimitError(
                        f"expression nesting depth exceeds the limit MAX_DEPTH={limits.MAX_DEPTH:,}",
                        hint="split it into statements: t1 = ...; t2 = ...",
                    )
                if not children:  # a number, a name or a constructor: nothing to wait for
                    leaf = build()
                    if isinstance(leaf, Ref):
                        names.append(leaf.name)
                    elif isinstance(leaf, Apply):
                        self.count_operation()
                    values.append(leaf)
                    continue
                stack.append((node, depth, build, len(children)))
                stack.extend([(child, depth + 1, None, 0) for child in reversed(children)])
            else:
                operands = values[-arity:]
                del values[-arity:]
                built = build(*operands)
                if isinstance(built, Apply):
                    self.count_operation()
                values.append(built)
        return values[0], names

    def count_operation(self) -> None:
        self.operations += 1
        if self.operations > limits.MAX_NODES:
            raise LimitError(
                f"the program has more than {limits.MAX_NODES:,} operations, "
                f"over the limit MAX_NODES={limits.MAX_NODES:,}"
            )

    def screen(self, module: ast.Module) -> None:
        """One cheap walk (ast.walk is iterative) before the real conversion.

        It names the most dangerous part first: any `__name__` anywhere, since dunders
        are how escapes from Python sandboxes start (`().__class__.__bases__`) and
        nothing in gradcli's grammar needs one. It also counts operations, so a
        program over MAX_NODES is refused before each node is converted.

        The walk costs as much as Python's parser; it is skipped when the text alone shows
        it would find nothing: ASCII without `__` holds no dunder name, and each counted
        operation needs an operator character or `(` of its own.
        """
        text = self.src.text
        bound = sum(map(text.count, _OPERATION_CHARACTERS))
        if text.isascii() and "__" not in text and bound <= limits.MAX_NODES:
            return
        operations = 0
        for node in ast.walk(module):
            if isinstance(node, (ast.BinOp, ast.Call)) or (
                isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            ):
                operations += 1  # each becomes one operation: a lower bound of the count
            name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
            if isinstance(name, str) and name.startswith("__"):
                self.check_name(name, node)
        limits.check(operations, limits.MAX_NODES, "number of operations", "MAX_NODES")

    # -- statements -----------------------------------------------------------------

    def parse(self) -> Program:
        text = self.src.text
        if not text.strip():
            raise ParseError("the program is empty", hint='give an expression such as "(2*x)**3"')
        _prescan(text, self.src)
        try:
            with warnings.catch_warnings():
                # Python's parser warns about things like '\d' in a string; the string is
                # refused below, and a warning must never reach the user's terminal.
                warnings.simplefilter("ignore")
                module = ast.parse(text, mode="exec")
        except SyntaxError as exc:
            line, column = self.src.position(exc.lineno or 1, (exc.offset or 1) - 1)
            message = (exc.msg or "invalid syntax").replace(
                "unterminated string literal", "unterminated string"
            )
            raise ParseError(
                f"syntax error: {message}",
                line=line,
                column=column,
                multiline=self.src.multiline,
                hint=near_miss(self.src.text) if len(self.src.text) <= 1_000 else None,
            ) from None
        except (RecursionError, MemoryError):
            # Python's parser gives up on chains a few thousand operators deep
            # (100,000 unary minus signs, a 100,000-term sum); ours stops at MAX_DEPTH.
            raise LimitError(
                f"expression nesting depth exceeds the limit MAX_DEPTH={limits.MAX_DEPTH:,}",
                hint="split long chains into statements: t1 = ...; t2 = ...",
            ) from None
        except ValueError as exc:  # e.g. an integer literal past Python's 4,300-digit limit
            raise ParseError(f"syntax error: {exc}") from None
        limits.check(len(module.body), limits.MAX_STATEMENTS, "number of statements", "MAX_STATEMENTS")
        if not module.body:
            raise ParseError("the program has only comments", hint='give an expression such as "(2*x)**3"')
        self.screen(module)
        statements: list[Statement] = []
        assigned: set[str] = set()
        inputs: dict[str, None] = {}
        for stmt in module.body:
            in_place = False
            if isinstance(stmt, ast.Assign) and _unpacks_a_pick(stmt):
                # v, i = x.max(1): two statements, one per member
                for part, name_node in enumerate(stmt.targets[0].elts):
                    self.check_name(name_node.id, name_node)
                    expr, names = self.convert(
                        ast.copy_location(
                            ast.Subscript(value=stmt.value, slice=ast.Constant(part), ctx=ast.Load()),
                            stmt.value,
                        )
                    )
                    names, self.attr_names = names + self.attr_names, []
                    for name in names:
                        if name not in assigned:
                            inputs.setdefault(name)
                    assigned.add(name_node.id)
                    self.shadowed.add(name_node.id)
                    statements.append(Statement(name_node.id, expr, stmt.lineno))
                continue
            shaped = _unpacks_a_shape(stmt) if isinstance(stmt, ast.Assign) else None
            if shaped is not None:
                # B, T, C = x.shape: one size per name, each checking the rank as Python's unpacking
                names_nodes = stmt.targets[0].elts
                tensor, names = self.convert(shaped)
                names, self.attr_names = names + self.attr_names, []
                for name in names:
                    if name not in assigned:
                        inputs.setdefault(name)
                line, col = self.src.node_position(stmt.value)
                for dim, name_node in enumerate(names_nodes):
                    self.check_name(name_node.id, name_node)
                    attrs = (("dim", dim), ("unpack", len(names_nodes)))
                    self.count_operation()
                    statements.append(
                        Statement(name_node.id, Apply("size", (tensor,), line, col, attrs), stmt.lineno)
                    )
                    assigned.add(name_node.id)
                    self.shadowed.add(name_node.id)
                continue
            if isinstance(stmt, ast.Assign):
                if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                    raise self.error(
                        "assign to one plain name (y = 2*x), to sizes (B, T = x.shape) or to "
                        "(values, indices) of max/min with a dim; subscript and attribute targets "
                        "(x[0] = ...) are not supported",
                        stmt,
                    )
                target_node = stmt.targets[0]
                expr_node = stmt.value
            elif isinstance(stmt, ast.AugAssign):
                target_node = stmt.target
                if not isinstance(target_node, ast.Name):
                    raise self.error("augmented assignment works on a plain name, as in c += 1", stmt)
                kind = type(stmt.op).__name__
                if kind not in _IN_PLACE:
                    raise self.error(
                        f"in-place '{OPERATOR_SYMBOLS.get(kind, kind)}=' is not supported; use + - * / or **",
                        stmt,
                    )
                # c += v is PyTorch's c.add_(v): the same op, applied to the tensor c names.
                in_place = True
                expr_node = ast.BinOp(
                    left=ast.Name(id=target_node.id, ctx=ast.Load()), op=stmt.op, right=stmt.value
                )
                ast.copy_location(expr_node, stmt)
                ast.copy_location(expr_node.left, target_node)
            elif isinstance(stmt, ast.Expr):
                target_node, expr_node = None, stmt.value
            else:
                kind = type(stmt).__name__
                raise self.error(
                    f"{_FRIENDLY.get(kind, kind + ' statement')} is not allowed; use NAME = EXPR or EXPR",
                    stmt,
                )
            target = None
            if target_node is not None:
                target = target_node.id
                self.check_name(target, target_node)
            expr, names = self.convert(expr_node)
            names, self.attr_names = names + self.attr_names, []
            for name in names:
                if name not in assigned:
                    inputs.setdefault(name)
            if target is not None:  # later uses of the name see this result (Python's rebinding)
                assigned.add(target)
                self.shadowed.add(target)
            statements.append(Statement(target, expr, stmt.lineno, in_place))
        return Program(self.src.text, tuple(statements), tuple(inputs), self.src.multiline)


_STRUCTURE = re.compile(r"[()\[\]{};\n]")
_COMMENT = re.compile(r"#[^\n]*")


class CallBinder(_Parser):
    """The parser's call binding for `gradcli run`: the script's interpreter hands it calls whose
    arguments it has evaluated (as literals and placeholder names), so spellings, defaults and
    keyword checks are exactly those of `gradcli grad`; errors name the script's own line and column."""

    def __init__(self) -> None:
        super().__init__("0")

    def error(self, message: str, node: ast.AST | None = None, hint: str | None = None) -> ParseError:
        where = ""
        if node is not None and hasattr(node, "lineno"):
            where = f"line {node.lineno}, column {getattr(node, 'col_offset', 0) + 1}: "
        return ParseError(where + message + (f" (hint: {hint})" if hint else ""))


def _prescan(text: str, src: _Source) -> None:
    """Bracket depth and statement count from one scan, before Python's parser does any work.

    Python's parser is fast but not free: a long hostile program should be refused in
    milliseconds, not after a second of parsing. Only brackets, `;` and newlines are
    visited (in C, via a regex); comments are dropped first and `\\` line joins kept whole.
    """
    scanned = _COMMENT.sub("", text).replace("\\\n", "  ")
    depth = statements = 0
    start = 0
    for match in _STRUCTURE.finditer(scanned):
        ch = match.group()
        if ch in "([{":
            depth += 1
            if depth > limits.MAX_NESTING:
                line = scanned.count("\n", 0, match.start()) + 1
                column = match.start() - (scanned.rfind("\n", 0, match.start()) + 1)
                where = src.position(line, column)
                raise LimitError(
                    f"brackets nested more than {limits.MAX_NESTING} deep at line {where[0]}, "
                    f"column {where[1]}, over the limit MAX_NESTING={limits.MAX_NESTING}",
                    hint="name inner results in statements: t1 = ...; t2 = ...",
                )
        elif ch in ")]}":
            depth = max(0, depth - 1)  # a stray closer is Python's parser's to report
        elif depth == 0:  # `;` or a newline ends a statement
            if not scanned[start : match.start()].isspace() and match.start() > start:
                statements += 1
            start = match.end()
    if scanned[start:].strip():
        statements += 1
    limits.check(statements, limits.MAX_STATEMENTS, "number of statements", "MAX_STATEMENTS")


def parse_program(source: str, names: frozenset[str] | set[str] = frozenset()) -> Program:
    """Parse and validate a program; raises ParseError/LimitError, never executes anything.

    `names` are the inputs the caller will bind: such a name shadows a constant (`e`, `pi`)."""
    if not isinstance(source, str):
        raise ParseError(f"the program must be text, not {type(source).__name__}")
    limits.check(len(source), limits.MAX_PROGRAM_CHARS, "program length in characters", "MAX_PROGRAM_CHARS")
    if "\x00" in source:
        raise ParseError("the program contains a NUL byte")
    return _Parser(source, frozenset(names)).parse()
