"""The Python subset of `run`: statements, control flow, names, expressions, operators and calls of
the script's own functions, each under a cap of limits.Script (steps, loops, call depth, lengths)."""

from __future__ import annotations

import ast
import re
from typing import Any

import numpy as np

from .. import limits
from ..errors import (
    ArgumentValueError,
    AutogradError,
    DerivativeNotImplemented,
    IndexOutOfRange,
    ParseError,
    ShapeError,
)
from ..ops import BINARY, BITWISE, COMPARISON_SYMBOLS, COMPARISONS
from ..python_random import PythonRandom
from . import bounds, runtime
from .builtins import BUILTINS, MATH_FUNCTIONS
from .classes import CLASS_OBJECTS, Instance
from .forward_ad import DualLevel
from .numpy_api import NumpyType, contracted
from .random_api import RANDOM_CALLS, STATE_FUNCTIONS
from .runtime import ScriptError, ScriptRuntimeError, Tensor
from .saved_tensors import SavedHooks
from .tensor_methods import TORCH_IN_PLACE_FUNCTIONS
from .torch_api import CONSTRUCTORS, PIECE_CALLS, POSITION_CALLS
from .values import (
    ARGUMENT_SLIPS,
    CONTAINERS,
    Caught,
    Fixed,
    Function,
    Generated,
    Method,
    Module,
    NoGrad,
    Partial,
    UserFunction,
    show,
)
from .whitelist import FORBIDDEN_CALLS, IMPORTS, source_position, yields


class Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class Break(Exception):
    pass


class Continue(Exception):
    pass


_EXCEPTIONS = {
    "NotImplementedError",
    "RuntimeError",
    "Exception",
    "ValueError",
    "TypeError",
    "IndexError",
    "ZeroDivisionError",
    "AssertionError",
    "UserWarning",
    "StopIteration",
    "AttributeError",
    "KeyError",
}
_PY_BIN = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
    ast.MatMult: lambda a, b: a @ b,  # NumPy arrays (Python's numbers and lists refuse it)
}


# a += b on a NumPy array writes into the array, as Python's augmented assignment does
_PY_IN_PLACE = {
    ast.Add: lambda a, b: a.__iadd__(b),
    ast.Sub: lambda a, b: a.__isub__(b),
    ast.Mult: lambda a, b: a.__imul__(b),
    ast.Div: lambda a, b: a.__itruediv__(b),
    ast.FloorDiv: lambda a, b: a.__ifloordiv__(b),
    ast.Pow: lambda a, b: a.__ipow__(b),
}
_COMPARED = {getattr(ast, kind): COMPARISON_SYMBOLS[name] for kind, name in COMPARISONS.items()}
_PY_CMP = {
    ast.Gt: lambda a, b: a > b,
    ast.Lt: lambda a, b: a < b,
    ast.GtE: lambda a, b: a >= b,
    ast.LtE: lambda a, b: a <= b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
# The binder's refusals of an argument's kind, count or value, and the exception torch raises
_BINDER_ARGUMENT_WORDS = {
    "got an unexpected keyword argument": "TypeError",
    "got multiple values for argument": "TypeError",
    "must be an integer literal": "TypeError",
    "must be True or False": "TypeError",
    "argument(s) (": "TypeError",
    "must be a number literal": "TypeError",
    "tuple is not allowed": "TypeError",
    "list is not allowed": "TypeError",
    "is not a valid value for": "ValueError",
}
_ERROR_PLACE = re.compile(r"^line \d+(, column \d+)?: ")


def _invalid_arguments(func: Any, args: list, kwargs: dict, type_name: Any) -> str:
    """torch's first line for arguments none of a function's signatures takes."""
    name = getattr(func, "name", "function")
    given = [type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in kwargs.items()]
    return f"{name}() received an invalid combination of arguments - got ({', '.join(given)})"


def torch_kind(exc: Exception) -> str:
    """The Python exception torch raises for an engine error: IndexError for an index or a
    class target out of range, ValueError for F.*'s own Python checks, RuntimeError for the rest."""
    if isinstance(exc, ArgumentValueError):
        return "ValueError"
    if isinstance(exc, DerivativeNotImplemented):
        return "NotImplementedError"
    return "IndexError" if isinstance(exc, IndexOutOfRange) else "RuntimeError"


class PythonSubset:
    """Mixed into Interpreter: the Python language of a script (see the module's docstring)."""

    # -- statements -------------------------------------------------------------

    def block(self, statements: list[ast.stmt]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        self.steps += 1
        if self.steps > limits.Script.MAX_STEPS:
            raise ScriptError(
                f"line {node.lineno}: the script ran more than MAX_STEPS={limits.Script.MAX_STEPS:,} statements"
            )
        if self.steps % 16 == 0 or runtime.allocated() > self.memory.checked + 1_000_000:
            self.memory.check(node.lineno)
        self.line = node.lineno
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Yield):
            if not self.yielded:
                raise ScriptError(f"{source_position(node)}: 'yield' outside function")
            value = None if node.value.value is None else self.expr(node.value.value)
            self.yielded[-1].append(value)
            if len(self.yielded[-1]) > limits.Script.MAX_SEQUENCE:
                raise ScriptError(
                    f"line {node.lineno}: a generator yielded more than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,} values"
                )
        elif isinstance(node, ast.Expr):
            self.expr(node.value)
        elif isinstance(node, ast.Assign):
            value = self.expr(node.value)
            for target in node.targets:
                self.assign(target, value)
        elif isinstance(node, ast.AugAssign):
            self.augassign(node)
        elif isinstance(node, ast.For):
            self.for_loop(node)
        elif isinstance(node, ast.If):
            self.block(node.body if self.truth(self.expr(node.test)) else node.orelse)
        elif isinstance(node, ast.FunctionDef):
            enclosing = (self.frames[-1], *self.closures[-1]) if self.frames else ()
            self.bind(node.name, UserFunction(node, self.decorator(node), yields(node), enclosing))
        elif isinstance(node, ast.ClassDef):
            self.define_class(node)
        elif isinstance(node, ast.While):
            self.while_loop(node)
        elif isinstance(node, ast.Return):
            raise Return(None if node.value is None else self.expr(node.value))
        elif isinstance(node, ast.Try):
            self.try_block(node)
        elif isinstance(node, ast.Raise):
            self.raise_statement(node)
        elif isinstance(node, ast.Assert):
            if not self.truth(self.expr(node.test)):
                message = "" if node.msg is None else self.text(self.expr(node.msg))
                raise ScriptRuntimeError(message, "AssertionError")
        elif isinstance(node, ast.With):
            self.with_block(node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.bind(alias.asname, Module(IMPORTS[alias.name]))
                else:
                    self.bind(alias.name.split(".")[0], Module(alias.name.split(".")[0]))
        elif isinstance(node, ast.ImportFrom):
            source = Module(IMPORTS.get(node.module, node.module))  # also `from torch.utils import data`
            for alias in node.names:
                self.bind(alias.asname or alias.name, self.attribute(source, alias.name, node))
        elif isinstance(node, ast.Break):
            raise Break
        elif isinstance(node, ast.Continue):
            raise Continue
        # ast.Pass: nothing

    def decorator(self, node: ast.FunctionDef) -> NoGrad | None:
        """@torch.no_grad() (or @torch.no_grad, @torch.enable_grad()): the grad mode of its calls."""
        if not node.decorator_list:
            return None
        mode = self.expr(node.decorator_list[0])
        if isinstance(mode, Function) and mode.module == "torch" and mode.name in ("no_grad", "enable_grad"):
            mode = NoGrad(enabled=mode.name == "enable_grad")
        if not isinstance(mode, NoGrad):
            raise ScriptError(
                f"{source_position(node)}: the only decorators supported are @torch.no_grad() and @torch.enable_grad()"
            )
        return mode

    def while_loop(self, node: ast.While) -> None:
        """while test: body, with MAX_LOOP iterations at most (a script cannot spin forever)."""
        rounds = 0
        while self.truth(self.expr(node.test)):
            rounds += 1
            if rounds > limits.Script.MAX_LOOP:
                raise ScriptError(
                    f"line {node.lineno}: a while loop ran more than MAX_LOOP={limits.Script.MAX_LOOP:,} iterations"
                )
            if not self.round_of(node.body):
                break

    def for_loop(self, node: ast.For) -> None:
        for item in self.iterable(self.expr(node.iter), node):
            self.assign(node.target, item)
            if not self.round_of(node.body):
                break

    def round_of(self, body: list[ast.stmt]) -> bool:
        """One round of a loop's body; False when it breaks out of the loop."""
        try:
            self.block(body)
        except Break:
            return False
        except Continue:
            pass
        return True

    def list_comp(self, node: ast.ListComp | ast.GeneratorExp | ast.DictComp) -> list:
        """[elt for a in xs if c ...]: its names are its own, as in Python 3. A generator
        expression is made into its list: every use a script has (join, sum, max, tuple)
        consumes it whole; a dict comprehension gives its (key, value) pairs."""
        scope = self.frames[-1] if self.frames else self.globals
        names = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        saved = {n: scope[n] for n in names if n in scope}
        result: list = []

        def walk(level: int) -> None:
            if level == len(node.generators):
                self.tick(node)
                if isinstance(node, ast.DictComp):
                    result.append((self.expr(node.key), self.expr(node.value)))
                else:
                    result.append(self.expr(node.elt))
                self.check_length(result)
                return
            generator = node.generators[level]
            for item in self.iterable(self.expr(generator.iter), node):
                self.tick(node)
                self.assign(generator.target, item)
                if all(self.truth(self.expr(test)) for test in generator.ifs):
                    walk(level + 1)

        try:
            walk(0)
        finally:
            for name in names:
                if name in saved:
                    scope[name] = saved[name]
                else:
                    scope.pop(name, None)
        return result

    def tick(self, node: ast.AST) -> None:
        """One step of work that is not a statement (a comprehension's item): MAX_STEPS counts it."""
        self.steps += 1
        if self.steps > limits.Script.MAX_STEPS:
            raise ScriptError(
                f"line {node.lineno}: the script ran more than MAX_STEPS={limits.Script.MAX_STEPS:,} statements"
            )
        if self.steps % 16 == 0:
            self.memory.check(node.lineno)

    def iterable(self, items: Any, node: ast.AST) -> Any:
        """What `for` walks: a range (capped), a list, tuple or string, a tensor's rows."""
        if isinstance(items, range):
            if len(items) > limits.Script.MAX_LOOP:
                raise ScriptError(
                    f"line {node.lineno}: a loop of {len(items):,} iterations exceeds the limit MAX_LOOP={limits.Script.MAX_LOOP:,}"
                )
        elif isinstance(items, Tensor):
            items = (
                [self.index_tensor(items, i, node) for i in range(items.shape[0])] if items.shape else None
            )
            if items is None:
                raise ScriptRuntimeError("iteration over a 0-d tensor", "TypeError")
        elif isinstance(items, (dict, set)):
            items = list(items)  # a dict's keys, as Python iterates it; a set's members
        elif isinstance(items, Instance):
            items = self.items_of_object(items, node)
        elif isinstance(items, np.ndarray):
            if not items.shape:
                raise ScriptRuntimeError("iteration over a 0-d array", "TypeError")
            items = self.sequence(items)
        elif not isinstance(items, (list, tuple, str)):
            raise ScriptRuntimeError(f"'{self.type_name(items)}' object is not iterable", "TypeError")
        return items

    def try_block(self, node: ast.Try) -> None:
        try:
            self.block(node.body)
        except (ScriptRuntimeError, AutogradError, ShapeError) as exc:
            kind = exc.kind if isinstance(exc, ScriptRuntimeError) else torch_kind(exc)
            for handler in node.handlers:
                names = self.handler_names(handler)
                # NotImplementedError is a RuntimeError, as in Python (acosh_'s backward raises it)
                if (
                    names is None
                    or kind in names
                    or "Exception" in names
                    or (kind == "NotImplementedError" and "RuntimeError" in names)
                ):
                    if handler.name:
                        self.bind(handler.name, Caught(kind, exc.message))
                    self.handling.append(exc)  # what a bare `raise` in the handler raises again
                    try:
                        self.block(handler.body)
                    finally:
                        self.handling.pop()
                    return
            raise

    def raise_statement(self, node: ast.Raise) -> None:
        """`raise` (the exception being handled), `raise E` or `raise E(message)`."""
        if node.exc is None:
            if not self.handling:
                raise ScriptRuntimeError("No active exception to reraise", "RuntimeError")
            raise self.handling[-1]
        if isinstance(node.exc, ast.Name):
            raise ScriptRuntimeError("", node.exc.id)
        assert isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name)
        kind = node.exc.func.id
        if not node.exc.args:
            raise ScriptRuntimeError("", kind)
        value = self.expr(node.exc.args[0])
        text = self.repr(value) if kind == "KeyError" else self.text(value)  # str(KeyError(k)) is repr(k)
        raise ScriptRuntimeError(text, kind)

    def handler_names(self, handler: ast.ExceptHandler) -> set[str] | None:
        if handler.type is None:
            return None
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names = set()
        for t in types:
            if not isinstance(t, ast.Name) or t.id not in _EXCEPTIONS:
                raise ScriptError(f"{source_position(t)}: except takes {', '.join(sorted(_EXCEPTIONS))}")
            names.add(t.id)
        return names

    def with_block(self, node: ast.With) -> None:
        if len(node.items) != 1 or node.items[0].optional_vars is not None:
            raise ScriptError(f"{source_position(node)}: only 'with torch.no_grad():' is supported")
        manager = self.expr(node.items[0].context_expr)
        # saved_tensors_hooks(pack, unpack) (saved_tensors.py), forward_ad.dual_level() (forward_ad.py)
        rooms = {SavedHooks: (self.enter_saved_hooks, self.leave_saved_hooks)}
        rooms[DualLevel] = (self.enter_dual_level, self.leave_dual_level)
        if type(manager) in rooms:
            enter, leave = rooms[type(manager)]
            enter(manager, node)
            try:
                self.block(node.body)
            finally:
                leave()
            return
        if not isinstance(manager, NoGrad):
            raise ScriptError(f"{source_position(node)}: only 'with torch.no_grad():' is supported")
        previous = self.grad_enabled if manager.before is None else manager.before
        self.grad_enabled = manager.enabled
        inference, runtime.INFERENCE[0] = runtime.INFERENCE[0], manager.inference or runtime.INFERENCE[0]
        try:
            self.block(node.body)
        finally:
            self.grad_enabled = previous
            runtime.INFERENCE[0] = inference

    # -- names and assignment ---------------------------------------------------

    def bind(self, name: str, value: Any) -> None:
        (self.frames[-1] if self.frames else self.globals)[name] = value

    def lookup(self, node: ast.Name) -> Any:
        name = node.id
        if self.frames and name in self.frames[-1]:
            return self.frames[-1][name]
        for enclosing in self.closures[-1] if self.closures else ():
            if name in enclosing:  # a name of an enclosing def (a hook factory's argument)
                return enclosing[name]
        if name in self.globals:
            return self.globals[name]
        if name in BUILTINS:
            return Function("", name)
        if name in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[name]
        if name in FORBIDDEN_CALLS:  # a builtin the script shadows elsewhere, used unshadowed here
            raise ScriptError(f"line {self.line}: '{name}' is not available in gradcli run scripts")
        raise ScriptRuntimeError(f"name '{name}' is not defined", "NameError")

    def assign(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.sequence(value)
            if len(items) != len(target.elts):
                raise ScriptRuntimeError(
                    f"{'too many' if len(items) > len(target.elts) else 'not enough'} values to unpack "
                    f"(expected {len(target.elts)}, got {len(items)})",
                    "ValueError",
                )
            for t, v in zip(target.elts, items):
                self.assign(t, v)
        elif isinstance(target, ast.Attribute):
            self.set_attribute(self.expr(target.value), target.attr, value, target)
        elif isinstance(target, ast.Subscript):
            owner = self.expr(target.value)
            if isinstance(owner, np.ndarray):
                self.array_set_item(owner, self.index_value(target.slice), value)
            else:
                self.set_item(owner, target, value)
        else:
            raise ScriptError(f"{source_position(target)}: cannot assign to this")

    def sequence(self, value: Any) -> list:
        if isinstance(value, (list, tuple)):
            return list(value)
        if isinstance(value, Instance):
            return self.items_of_object(value, None)
        if isinstance(value, Tensor) and value.shape:
            return [self.index_tensor(value, i, None) for i in range(value.shape[0])]
        if isinstance(value, np.ndarray) and value.shape:  # rows (views), or NumPy numbers
            self.check_length(" " * min(value.shape[0], limits.Script.MAX_SEQUENCE + 1))
            return list(value)
        raise ScriptRuntimeError(f"cannot unpack non-iterable {self.type_name(value)} object", "TypeError")

    def augassign(self, node: ast.AugAssign) -> None:
        op = type(node.op)
        target = node.target
        if isinstance(target, ast.Name):
            current = self.lookup(target)
        elif isinstance(target, ast.Attribute):
            owner = self.expr(target.value)
            current = self.attribute(owner, target.attr, target)
        elif isinstance(target, ast.Subscript):
            owner = self.expr(target.value)
            current = self.item_of(owner, target)
        else:
            raise ScriptError(f"{source_position(target)}: cannot assign to this")
        right = self.expr(node.value)
        if isinstance(current, Tensor):
            if op.__name__ not in BINARY or op is ast.MatMult:
                raise ScriptError(
                    f"{source_position(node)}: this in-place operator is not supported on tensors"
                )
            self.in_place(current, BINARY[op.__name__], right)
            result = current
        elif isinstance(current, np.ndarray) and op in _PY_IN_PLACE and not isinstance(right, Tensor):
            result = self.array_in_place(current, _PY_IN_PLACE[op], right)  # a += 1 writes into a
        else:
            result = self.binop(current, op, right, node)
        if isinstance(target, ast.Name):
            self.bind(target.id, result)
        elif isinstance(target, ast.Attribute):
            self.set_attribute(owner, target.attr, result, target)
        elif isinstance(owner, np.ndarray):
            self.array_set_item(owner, self.index_value(target.slice), result)
        else:  # x[i] += v: the element's new value is written back into x
            self.set_item(owner, target, result)

    # -- expressions ------------------------------------------------------------

    def expr(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Lambda):  # `lambda t: t ** 2` is `def <lambda>(t): return t ** 2`
            body = ast.copy_location(ast.Return(value=node.body), node.body)
            function = ast.copy_location(
                ast.FunctionDef(
                    name="<lambda>", args=node.args, body=[body], decorator_list=[], returns=None
                ),
                node,
            )
            enclosing = (self.frames[-1], *self.closures[-1]) if self.frames else ()
            return UserFunction(function, None, False, enclosing)
        if isinstance(node, ast.Name):
            return self.lookup(node)
        if isinstance(node, ast.BinOp):
            return self.binop(self.expr(node.left), type(node.op), self.expr(node.right), node)
        if isinstance(node, ast.UnaryOp):
            value = self.expr(node.operand)
            if isinstance(node.op, ast.Not):
                return not self.truth(value)
            if isinstance(value, Tensor):
                if isinstance(node.op, ast.USub):
                    return self.apply("neg", [value], {})
                if isinstance(node.op, ast.UAdd):
                    return value
                return self.registry("torch", BITWISE["Invert"], None, [value], {}, node)
            return self.python(
                lambda: {ast.USub: lambda v: -v, ast.UAdd: lambda v: +v, ast.Invert: lambda v: ~v}[
                    type(node.op)
                ](value)
            )
        if isinstance(node, ast.BoolOp):
            value = None
            for operand in node.values:
                value = self.expr(operand)
                if self.truth(value) == isinstance(node.op, ast.Or):
                    return value
            return value
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.IfExp):
            return self.expr(node.body if self.truth(self.expr(node.test)) else node.orelse)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.expr(node.value), node.attr, node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Subscript):
            return self.item_of(self.expr(node.value), node)
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(e) for e in node.elts)
        if isinstance(node, ast.List):
            return [self.expr(e) for e in node.elts]
        if isinstance(node, ast.Dict):  # {**other} is refused by check()
            pairs = [(self.expr(k), self.expr(v)) for k, v in zip(node.keys, node.values) if k is not None]
            return self.check_length(self.python(lambda: dict(pairs)))
        if isinstance(node, ast.DictComp):  # {s: i for i, s in enumerate(chars)}, as makemore writes
            pairs = self.list_comp(node)
            return self.check_length(self.python(lambda: dict(pairs)))
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):  # a generator is consumed at once
            return self.list_comp(node)
        if isinstance(node, ast.JoinedStr):
            parts, length = [], 0
            for v in node.values:
                parts.append(self.fstring_part(v))
                length += len(parts[-1])
                bounds.check_text_length(length, self.line)
            return "".join(parts)
        raise ScriptError(f"{source_position(node)}: {type(node).__name__} not supported")

    def fstring_part(self, node: ast.expr) -> str:
        if isinstance(node, ast.Constant):
            return node.value
        assert isinstance(node, ast.FormattedValue)
        value = self.expr(node.value)
        if node.conversion == ord("r"):
            value = self.repr(value)
        elif node.conversion in (ord("s"), ord("a")):
            value = self.text(value)
        spec = "" if node.format_spec is None else self.expr(node.format_spec)
        return self.format(value, spec)

    def format(self, value: Any, spec: str) -> str:
        if any(len(d) > 3 for d in re.findall(r"\d+", spec)):
            raise ScriptError(f"line {self.line}: format width or precision over 999 is not supported")
        if isinstance(value, Tensor):
            if value.value.ndim == 0:
                return self.python(lambda: format(self.item(value), spec))
            if spec:
                raise ScriptRuntimeError("unsupported format string passed to Tensor.__format__", "TypeError")
            return show(value)
        if isinstance(value, (int, float, str, bool, np.generic)) or value is None:
            return self.python(lambda: format(value, spec))
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return self.python(lambda: format(value.item(), spec))
        if spec:
            raise ScriptRuntimeError(
                f"unsupported format string passed to {self.type_name(value)}.__format__", "TypeError"
            )
        return self.text(value)

    def python(self, compute):
        """A Python-level operation on script values; its errors become the script's errors."""
        try:
            result = compute()  # Python's warnings are off for the whole run (see run())
        except (ZeroDivisionError, IndexError, ValueError, TypeError, OverflowError, KeyError) as exc:
            message = str(exc)
            if isinstance(exc, ZeroDivisionError) and message == "float division by zero":
                message = "float division by zero"
            raise ScriptRuntimeError(message, type(exc).__name__) from None
        return self.check_length(result)

    def check_length(self, value: Any) -> Any:
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and value.bit_length() > limits.Script.MAX_INT_BITS
        ):
            raise ScriptError(
                f"line {self.line}: an integer of more than MAX_INT_BITS={limits.Script.MAX_INT_BITS:,} bits"
            )
        if isinstance(value, (str, list, tuple, dict)) and len(value) > limits.Script.MAX_SEQUENCE:
            raise ScriptError(
                f"line {self.line}: a string or list longer than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,}"
            )
        return value

    def binop(self, left: Any, op: type, right: Any, node: ast.AST) -> Any:
        if op is ast.Mod and isinstance(left, str):
            return self.percent_format(left, right, node)
        if isinstance(left, Tensor) or isinstance(right, Tensor):
            left, right = (self.beside_tensor(side, op, left) for side in (left, right))
            for side in (left, right):
                if not isinstance(side, (Tensor, int, float, bool)):
                    raise ScriptRuntimeError(
                        f"unsupported operand type(s): '{self.type_name(left)}' and '{self.type_name(right)}'",
                        "TypeError",
                    )
            if op.__name__ in BITWISE:  # torch's bitwise functions, as composites of the registry
                return self.registry("torch", BITWISE[op.__name__], None, [left, right], {}, node)
            if op.__name__ not in BINARY:
                raise ScriptError(
                    f"{source_position(node)}: operator {op.__name__} is not supported on tensors"
                )
            return self.apply(BINARY[op.__name__], [left, right], {})
        big_power = op is ast.Pow and isinstance(left, int) and isinstance(right, int) and right > 0
        if big_power and abs(left) > 1 and right * max(left.bit_length(), 1) > limits.Script.MAX_INT_BITS:
            raise ScriptError(
                f"{source_position(node)}: an integer of more than MAX_INT_BITS={limits.Script.MAX_INT_BITS:,} bits"
            )
        if (
            op is ast.Mult
            and isinstance(left, (str, list, tuple))
            and isinstance(right, (int, np.integer))
            or (
                op is ast.Mult
                and isinstance(right, (str, list, tuple))
                and isinstance(left, (int, np.integer))
            )
        ):
            seq, count = (left, right) if isinstance(right, (int, np.integer)) else (right, left)
            if len(seq) * int(count) > limits.Script.MAX_SEQUENCE:
                raise ScriptError(
                    f"{source_position(node)}: a string or list longer than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,}"
                )
        if op not in _PY_BIN:
            raise ScriptError(f"{source_position(node)}: operator {op.__name__} is not supported")
        if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
            left, right = self.numpy_arguments([left, right], {}, node)[0]
            if op is ast.MatMult:
                self.weigh_array(1, work=contracted([left, right], {}))
            self.check_array_result(left, right)
        return self.python(lambda: _PY_BIN[op](left, right))

    def compare(self, node: ast.Compare) -> Any:
        left = self.expr(node.left)
        result: Any = True
        for op, comparator in zip(node.ops, node.comparators):
            right = self.expr(comparator)
            value = self.compare_pair(left, type(op), right)
            if len(node.ops) == 1:
                return value
            if not self.truth(value):
                return value
            result, left = value, right
        return result

    def compare_pair(self, left: Any, kind: type, right: Any) -> Any:
        """`left <op> right` of two values, `kind` the ast class of the comparison."""
        if (isinstance(left, Tensor) or isinstance(right, Tensor)) and kind.__name__ in COMPARISONS:
            if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
                raise ScriptRuntimeError(
                    f"'{_COMPARED[kind]}' not supported between instances of "
                    f"'{self.class_name(left).replace('torch.', '')}' and "
                    f"'{self.class_name(right).replace('torch.', '')}'",
                    "TypeError",
                )
            pair = [v.item() if isinstance(v, np.generic) else v for v in (left, right)]
            value = self.apply(COMPARISONS[kind.__name__], pair, {})
        else:
            if kind in (ast.In, ast.NotIn) and not isinstance(left, int):
                bounds.check_range(right, self.line)  # 1.5 in range(n) walks the range
            if kind in (ast.In, ast.NotIn) and isinstance(right, (dict, set)):
                if isinstance(left, CONTAINERS):  # a key is hashed, not compared item by item
                    bounds.measure(left, self.line)
            elif isinstance(left, CONTAINERS) or isinstance(right, CONTAINERS):
                bounds.measure([left, right], self.line)
            if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
                self.check_array_result(left, right)
            pair = [
                v.numpy if isinstance(v, NumpyType) else v for v in (left, right)
            ]  # a.dtype == np.float32
            value = self.python(lambda kind=kind, pair=pair: _PY_CMP[kind](*pair))
        return value

    def truth(self, value: Any) -> bool:
        if isinstance(value, Tensor):
            if value.value.size != 1:
                raise ScriptRuntimeError(
                    "Boolean value of Tensor with more than one value is ambiguous"
                    if value.value.size
                    else "Boolean value of Tensor with no values is ambiguous"
                )
            return bool(value.value.reshape(()))
        if isinstance(value, (int, float, str, list, tuple, bool, range)) or value is None:
            return bool(value)
        if isinstance(value, (np.ndarray, np.generic)):  # NumPy's truth: one element, or ValueError
            return self.python(lambda: bool(value))
        return True

    # -- calls ----------------------------------------------------------------------

    def call(self, node: ast.Call) -> Any:
        func = self.expr(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):  # print(*x.shape), f(*args): the sequence's items
                items = self.sequence_of(self.expr(a.value))
                if not isinstance(items, list):
                    raise ScriptRuntimeError("argument after * must be an iterable", "TypeError")
                args.extend(items)
                continue
            args.append(self.expr(a))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise ScriptError(f"{source_position(kw.value)}: '**' arguments are not supported")
            kwargs[kw.arg] = self.expr(kw.value)
        return self.call_function(func, args, kwargs, node)

    def call_function(self, func: Any, args: list, kwargs: dict, node: ast.Call) -> Any:
        """Call a value with evaluated arguments: the script's def, a class, or a builtin."""
        while isinstance(func, Partial):  # functools.partial: its arguments first, its keywords overridable
            func, args, kwargs = func.func, [*func.args, *args], {**func.kwargs, **kwargs}
        if isinstance(func, UserFunction):
            return self.call_user(func, args, kwargs, node)
        if isinstance(func, CLASS_OBJECTS):
            return self.call_object(func, args, kwargs, node)
        try:
            return self.dispatch(func, args, kwargs, node)
        except ARGUMENT_SLIPS as exc:
            # gradcli's own code met an argument of a kind it does not take (x.add(None),
            # x.sum(dim=x)): torch's argument parser refuses these with a TypeError
            raise ScriptRuntimeError(
                _invalid_arguments(func, args, kwargs, self.type_name), "TypeError"
            ) from exc
        except ParseError as exc:
            message = re.sub(r" \(hint: .*\)$", "", _ERROR_PLACE.sub("", exc.message))  # torch's words only
            kinds = [kind for word, kind in _BINDER_ARGUMENT_WORDS.items() if word in message]
            if not kinds:
                raise
            raise ScriptRuntimeError(message, kinds[0]) from None

    def dispatch(self, func: Any, args: list, kwargs: dict, node: ast.Call) -> Any:
        """A call of a builtin, a torch function or a method, its arguments evaluated."""
        if isinstance(func, Function):
            if func.module == "":
                return self.builtin(func.name, args, kwargs, node)
            if func.module == "math":
                values = [self.item(a) if isinstance(a, Tensor) else a for a in args]
                return self.python(lambda: MATH_FUNCTIONS[func.name](*values, **kwargs))
            if func.module == "random":  # Python's own generator, modelled bit for bit
                if self.python_random is None:
                    self.python_random = PythonRandom()
                if func.name == "seed":
                    self.seeded.add("random")
                self.note_unseeded("random", "random.seed(n)")
                method = getattr(self.python_random, func.name)
                return self.python(lambda: method(*args, **kwargs))
            if func.module == "torch.autograd.forward_ad":
                return self.forward_ad_call(func.name, args, kwargs, node)
            if func.module == "torch.autograd.graph":
                return self.saved_tensors_hooks(args, kwargs)
            if func.module == "torch.autograd" and func.name == "Variable":
                return self.variable(args, kwargs)
            if func.module == "torch.autograd":
                return self.autograd_call(func.name, args, kwargs, node)
            if func.module.startswith("numpy"):
                return self.numpy_call(func.module, func.name, args, kwargs, node)
            if func.module == "functools":
                if not args:
                    raise ScriptRuntimeError("type 'partial' takes at least one argument", "TypeError")
                return Partial(args[0], tuple(args[1:]), dict(kwargs))
            if func.module == "torch" and func.name.startswith(("set_default", "get_default")):
                return self.default_setting(func.name, args, kwargs, node)
            if func.module == "torch.nn.functional" and func.name == "dropout":
                return self.dropout_call(args, kwargs)
            if func.module == "torch.nn.init":
                return self.init_call(func.name, args, kwargs)
            if func.module == "torch.nn" and func.name == "Parameter":
                return self.parameter(args, kwargs)
            if func.module == "torch.autograd.functional":
                return self.functional(func.name, args, kwargs, node)
            if func.module == "torch" and func.name in STATE_FUNCTIONS:
                return self.state_call(func.name, args, kwargs)
            if func.module == "torch" and func.name in RANDOM_CALLS:
                return self.random_call(func.name, args, kwargs)
            if func.module == "torch" and func.name in CONSTRUCTORS:
                return self.construct(func.name, args, kwargs, node)
            if (
                func.module == "torch"
                and func.name in POSITION_CALLS
                or (func.module == "torch" and func.name == "where" and len(args) == 1 and not kwargs)
            ):
                if not args or not isinstance(args[0], Tensor):
                    raise ScriptRuntimeError(f"{func.name}(): argument 'input' must be Tensor", "TypeError")
                return self.positions(func.name, args[0], args[1:], kwargs)
            if func.module == "torch" and func.name in PIECE_CALLS:
                if not args or not isinstance(args[0], Tensor):
                    raise ScriptRuntimeError(f"{func.name}(): argument 'input' must be Tensor", "TypeError")
                return self.pieces(func.name, args[0], args[1:], kwargs)
            if func.module == "torch" and func.name in TORCH_IN_PLACE_FUNCTIONS:
                if not args or not isinstance(args[0], Tensor):
                    got = f", not {self.type_name(args[0])}" if args else ""
                    raise ScriptRuntimeError(
                        f"{func.name}(): argument 'input' (position 1) must be Tensor{got}", "TypeError"
                    )
                return self.tensor_method(args[0], func.name, list(args[1:]), kwargs, node)
            return self.registry(func.module, func.name, None, args, kwargs, node)
        if isinstance(func, Method):
            return self.method(func.receiver, func.name, args, kwargs, node)
        if isinstance(func, Partial):  # called by map(), a hook, Module.apply
            return self.call_function(func, args, kwargs, node)
        if isinstance(func, NumpyType):
            return self.numpy_type_call(func, args, kwargs)
        if isinstance(func, Fixed):
            if args or kwargs:
                raise ScriptRuntimeError(f"{func.name}() takes no arguments", "TypeError")
            return func.value
        raise ScriptRuntimeError(f"'{self.type_name(func)}' object is not callable", "TypeError")

    def call_user(self, func: UserFunction, args: list, kwargs: dict, node: ast.AST) -> Any:
        if len(self.frames) >= limits.Script.MAX_CALL_DEPTH:
            raise ScriptError(
                f"line {self.line}: calls nested deeper than the limit MAX_CALL_DEPTH={limits.Script.MAX_CALL_DEPTH}"
            )
        spec = func.node.args
        title = f"{func.defined_in.name}.{func.node.name}" if func.defined_in is not None else func.node.name
        names = [a.arg for a in spec.args]
        extra: tuple = ()
        if spec.vararg is not None and len(args) > len(names):  # def f(a, *rest): rest takes the others
            args, extra = args[: len(names)], tuple(args[len(names) :])
        if len(args) > len(names):
            raise ScriptRuntimeError(
                f"{title}() takes {len(names)} positional arguments but {len(args)} were given",
                "TypeError",
            )
        frame: dict[str, Any] = dict(zip(names, args))
        if func.defined_in is not None and names:  # a method: what super() in its body starts from
            frame["@class"] = func.defined_in
        for key, value in kwargs.items():
            if key not in names or key in frame:
                raise ScriptRuntimeError(f"{title}() got an unexpected keyword argument '{key}'", "TypeError")
            frame[key] = value
        defaults = spec.defaults
        for name, default in zip(names[len(names) - len(defaults) :], defaults):
            if name not in frame:
                frame[name] = self.expr(default)
        if spec.vararg is not None:
            frame[spec.vararg.arg] = extra
        if "@class" in frame and names and names[0] in frame:
            frame["@self"] = frame[names[0]]
        missing = [n for n in names if n not in frame]
        if missing:
            raise ScriptRuntimeError(
                f"{title}() missing required positional argument: '{missing[0]}'", "TypeError"
            )
        line = self.line
        self.frames.append(frame)
        self.closures.append(func.closure)
        previous = self.grad_enabled
        if func.grad_mode is not None:
            self.grad_enabled = func.grad_mode.enabled
        if func.generator:
            self.yielded.append([])
        try:
            self.block(func.node.body)
            value = None
        except Return as ret:
            value = ret.value
        finally:
            self.frames.pop()
            self.closures.pop()
            self.grad_enabled = previous
            values = self.yielded.pop() if func.generator else None
        self.line = line
        if values is not None:
            return Generated(values, func.node.name)
        return value

    def extreme(self, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        """Python's max()/min() over tensors: the first item no later one beats, compared by
        `>` (`<`) and the truth of the result, so a tensor of several elements is torch's error."""
        if kwargs:
            raise ScriptError(
                f"{source_position(node)}: {name}() over tensors takes no key= or default= here"
            )
        items = self.sequence(args[0]) if len(args) == 1 else list(args)
        if not items:
            raise ScriptRuntimeError(f"{name}() arg is an empty sequence", "ValueError")
        beats = ast.Gt if name == "max" else ast.Lt
        best = items[0]
        for item in items[1:]:
            if isinstance(item, Tensor) or isinstance(best, Tensor):
                better = self.apply(COMPARISONS[beats.__name__], [item, best], {})
            else:
                better = self.python(lambda item=item, best=best: _PY_CMP[beats](item, best))
            if self.truth(better):
                best = item
        return best

    def sequence_of(self, value: Any) -> list:
        if isinstance(value, range):
            if len(value) > limits.Script.MAX_SEQUENCE:
                raise ScriptError(
                    f"line {self.line}: a sequence longer than MAX_SEQUENCE={limits.Script.MAX_SEQUENCE:,}"
                )
            return list(value)
        if isinstance(value, (list, tuple, str, dict, set)):
            return list(value)
        if isinstance(value, int):
            return value  # enumerate(xs, 1)'s start
        return self.sequence(value)
