"""What `run` accepts, decided before anything runs: Python's parser reads the script, then `check`
walks the whole tree against the whitelist, so a hostile script prints nothing and runs nothing."""

from __future__ import annotations

import ast
import warnings

from .. import limits
from .runtime import ScriptError

IMPORTS = {
    "torch": "torch",
    "torch.nn.functional": "torch.nn.functional",
    "torch.autograd": "torch.autograd",
    "torch.autograd.functional": "torch.autograd.functional",
    "torch.autograd.forward_ad": "torch.autograd.forward_ad",
    "torch.func": "torch.func",
    "torch.nn": "torch.nn",
    "torch.nn.init": "torch.nn.init",
    "torch.utils.data": "torch.utils.data",
    "torch.optim": "torch.optim",
    "torch.optim.lr_scheduler": "torch.optim.lr_scheduler",
    "math": "math",
    "numpy": "numpy",
    "random": "random",
    "functools": "functools",  # partial, nothing else
}

# The exceptions a script may raise and catch (by name: the classes themselves are no values).
RAISABLE = frozenset(
    {
        "RuntimeError", "Exception", "ValueError", "TypeError", "IndexError", "ZeroDivisionError",
        "AssertionError", "StopIteration", "AttributeError", "KeyError", "NotImplementedError",
    }
)  # fmt: skip


def raisable(node: ast.Raise) -> bool:
    """`raise`, `raise E`, `raise E(message)` (and `from ...`, which changes nothing printed)."""
    exc = node.exc
    if exc is None:
        return True
    if isinstance(exc, ast.Call):
        return (
            isinstance(exc.func, ast.Name)
            and exc.func.id in RAISABLE
            and len(exc.args) <= 1
            and not exc.keywords
        )
    return isinstance(exc, ast.Name) and exc.id in RAISABLE


# ---------------------------------------------------------------- the whitelist

_ALLOWED = (
    ast.Yield,  # only as a statement in a def (check() refuses it elsewhere)
    ast.Starred,  # only as a call's argument, f(*xs) (check() refuses it elsewhere)
    ast.Module,
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.For,
    ast.While,
    ast.If,
    ast.FunctionDef,
    ast.ClassDef,  # one base, no decorators or keywords; defs, assignments and pass (check())
    ast.Lambda,  # a def of one return expression (see python.PythonSubset.expr)
    ast.Return,
    ast.Try,
    ast.Raise,  # `raise`, `raise ValueError`, `raise ValueError(message)` (check())
    ast.ExceptHandler,
    ast.Assert,
    ast.With,
    ast.withitem,
    ast.Pass,
    ast.Break,
    ast.Continue,
    ast.Import,
    ast.ImportFrom,
    ast.alias,
    ast.arguments,
    ast.arg,
    ast.Name,
    ast.Load,
    ast.Store,
    ast.Constant,
    ast.Attribute,
    ast.Call,
    ast.keyword,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.Subscript,
    ast.Slice,
    ast.Tuple,
    ast.List,
    ast.Dict,
    ast.JoinedStr,
    ast.FormattedValue,
    ast.IfExp,
    ast.ListComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.comprehension,
    ast.operator,
    ast.unaryop,
    ast.boolop,
    ast.cmpop,
    ast.expr_context,
)
FORBIDDEN_CALLS = {
    "eval",
    "exec",
    "compile",
    "open",
    "getattr",
    "setattr",
    "delattr",
    "globals",
    "locals",
    "vars",
    "input",
    "breakpoint",
    "help",
    "dir",
    "object",
    "memoryview",
    "exit",
    "quit",
}
_WHAT = {
    "While": "while loops",
    "Lambda": "lambda",
    "Global": "global",
    "Nonlocal": "nonlocal",
    "Delete": "del",
    "SetComp": "set comprehensions",
    "Set": "sets",
    "YieldFrom": "yield from",
    "Await": "await",
    "AsyncFunctionDef": "async",
    "NamedExpr": "':='",
    "Starred": "starred arguments",
    "AnnAssign": "annotations",
}


# The protocol methods a script's class may define, and the dunder attributes a script may read:
# `type(e).__name__`, `x.__class__.__name__`, `super().__init__(...)`, `torch.__version__` (nothing that reaches an
# object's internals: `__class__` is type(x), whose own dunders stay refused).
PROTOCOL_METHODS = frozenset(
    {"__init__", "__call__", "__len__", "__getitem__", "__iter__", "__repr__", "__str__"}
)
_READABLE_DUNDERS = frozenset({"__name__", "__init__", "__class__", "__version__"})
_CLASS_BODY = (ast.FunctionDef, ast.Assign, ast.Pass, ast.Expr)


def source_position(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', 1)}, column {getattr(node, 'col_offset', 0) + 1}"


def yields(node: ast.FunctionDef) -> bool:
    """Whether this def's own body (not a nested def's) yields: a generator function."""
    stack: list[ast.AST] = list(node.body)
    while stack:
        child = stack.pop()
        if isinstance(child, ast.Yield):
            return True
        if not isinstance(child, (ast.FunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(child))
    return False


def check(module: ast.Module) -> None:
    """Refuse, before running anything, what the language does not have; names the first offence."""
    statements = {  # `yield v` as a statement of a def: a generator function (Generated)
        id(n.value)
        for fn in ast.walk(module)
        if isinstance(fn, ast.FunctionDef)
        for n in ast.walk(fn)
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Yield)
    }
    spread = {id(a) for n in ast.walk(module) if isinstance(n, ast.Call) for a in n.args}  # f(*xs)
    # `def step(input, hidden)`, `dir = ...`: a name the script binds is its own variable, never
    # Python's builtin (which gradcli does not have); an unbound use is refused below.
    bound = {n.id for n in ast.walk(module) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {n.arg for n in ast.walk(module) if isinstance(n, ast.arg)}
    bound |= {n.name for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    methods = {  # defs directly in a class body: the ones that may be protocol methods
        id(s) for c in ast.walk(module) if isinstance(c, ast.ClassDef) for s in c.body
    }
    object_bases = {  # class A(object): the one use of `object` a script has
        id(b) for c in ast.walk(module) if isinstance(c, ast.ClassDef) for b in c.bases
    }
    stack: list[tuple[ast.AST, int]] = [(module, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.Starred) and id(node) not in spread:
            raise ScriptError(
                f"{source_position(node)}: starred expressions are supported in calls only, as in f(*xs)"
            )
        if isinstance(node, ast.Yield) and id(node) not in statements:
            raise ScriptError(
                f"{source_position(node)}: yield is supported as a statement in a def, as in `yield x, y`"
            )
        if depth > limits.Script.MAX_EXPR_DEPTH and isinstance(node, ast.expr):
            raise ScriptError(
                f"{source_position(node)}: expression nesting exceeds the limit MAX_EXPR_DEPTH={limits.Script.MAX_EXPR_DEPTH}"
            )
        kind = type(node).__name__
        if not isinstance(node, _ALLOWED):
            raise ScriptError(
                f"{source_position(node)}: {_WHAT.get(kind, kind)} not supported in gradcli run scripts"
            )
        name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.arg)):
            name = getattr(node, "name", None) or getattr(node, "arg", None)
        readable = (
            isinstance(node, ast.Attribute) and name in _READABLE_DUNDERS and isinstance(node.ctx, ast.Load)
        ) or (isinstance(node, ast.FunctionDef) and id(node) in methods and name in PROTOCOL_METHODS)
        if isinstance(name, str) and name.startswith("__") and not readable:
            raise ScriptError(f"{source_position(node)}: names starting with '__' are not allowed: '{name}'")
        if isinstance(node, ast.ClassDef):
            _check_class(node)
        if isinstance(node, ast.Name) and node.id == "object" and id(node) in object_bases:
            pass
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_CALLS and node.id not in bound:
            raise ScriptError(f"{source_position(node)}: '{node.id}' is not available in gradcli run scripts")
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in _NO_DATA_DOWNLOADS:
                    raise ScriptError(_no_downloads(node, alias.name))
                if alias.name not in IMPORTS:
                    raise ScriptError(
                        f"{source_position(node)}: import of '{alias.name}' refused: only torch, "
                        "torch.nn, torch.nn.functional, torch.autograd, torch.func, torch.optim, torch.utils.data, math, random, functools and numpy can be imported"
                    )
        if isinstance(node, ast.ImportFrom):
            if (node.module or "").split(".")[0] in _NO_DATA_DOWNLOADS:
                raise ScriptError(_no_downloads(node, node.module or ""))
            utils_data = node.module == "torch.utils" and all(a.name == "data" for a in node.names)
            if (node.module not in IMPORTS and not utils_data) or node.level:
                raise ScriptError(
                    f"{source_position(node)}: import from '{node.module}' refused: only torch, "
                    "torch.nn, torch.nn.functional, torch.autograd, torch.func, torch.optim, torch.utils.data, math, random, functools and numpy can be imported"
                )
            if any(alias.name == "*" for alias in node.names):
                raise ScriptError(
                    f"{source_position(node)}: 'import *' is not supported; name what you import"
                )
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            args = node.args
            decorated = isinstance(node, ast.FunctionDef) and len(node.decorator_list) > 1
            if decorated or args.kwarg or args.kwonlyargs or args.posonlyargs:
                raise ScriptError(
                    f"{source_position(node)}: only plain functions (def f(a, b=1, *rest):, lambda t: t ** 2), "
                    "or one decorator (@torch.no_grad(), @staticmethod), are supported"
                )
        if (
            isinstance(node, (ast.For, ast.While))
            and node.orelse
            or isinstance(node, ast.Try)
            and (node.orelse or node.finalbody)
        ):
            raise ScriptError(f"{source_position(node)}: else/finally clauses are not supported")
        if isinstance(node, ast.Raise) and not raisable(node):
            raise ScriptError(
                f"{source_position(node)}: raise takes `raise`, `raise ValueError` or `raise ValueError(message)` "
                f"with one of {', '.join(sorted(RAISABLE))}"
            )
        if isinstance(node, ast.Dict) and any(key is None for key in node.keys):
            raise ScriptError(f"{source_position(node)}: dict unpacking ({{**d}}) is not supported")
        if isinstance(node, ast.keyword) and node.arg is None:
            raise ScriptError(f"{source_position(node)}: keyword unpacking (f(**d)) is not supported")
        if isinstance(node, ast.Constant) and isinstance(node.value, (bytes, complex)):
            raise ScriptError(
                f"{source_position(node)}: {type(node.value).__name__} literals are not supported"
            )
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth + 1 if isinstance(child, ast.expr) else 0))


_NO_DATA_DOWNLOADS = ("torchvision", "torchtext", "torchaudio")


def _no_downloads(node: ast.AST, name: str) -> str:
    return (
        f"{source_position(node)}: import of '{name}' refused: gradcli run reads no files and downloads "
        "no datasets; build the data as tensors in the script (torch.utils.data.TensorDataset)"
    )


def _check_class(node: ast.ClassDef) -> None:
    """class Name(Base): one base (or none), no decorators or keywords (no metaclass=), a body of
    defs, plain assignments (class attributes), pass and docstrings."""
    if node.decorator_list or node.keywords or len(node.bases) > 1:
        raise ScriptError(
            f"{source_position(node)}: a class takes one base class and no decorators or keywords here"
        )
    for statement in node.body:
        plain = isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name) for t in statement.targets)
        docstring = isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
        if not (isinstance(statement, (ast.FunctionDef, ast.Pass)) or plain or docstring):
            raise ScriptError(
                f"{source_position(statement)}: a class body holds defs, assignments of names and pass only"
            )


def parse_script(source: str) -> ast.Module:
    if len(source) > limits.MAX_PROGRAM_CHARS:
        raise ScriptError(
            f"the script is longer than MAX_PROGRAM_CHARS={limits.MAX_PROGRAM_CHARS:,} characters"
        )
    if "\x00" in source:
        raise ScriptError("the script contains a NUL byte")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source, mode="exec")
    except SyntaxError as exc:
        raise ScriptError(f"line {exc.lineno}, column {exc.offset}: SyntaxError: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise ScriptError(f"the script cannot be parsed: {type(exc).__name__}") from None
