"""VALUE strings (`2`, `[[1,2],[3,4]]`, `zeros(2,3)`, `randn(2,2)`) -> NumPy arrays.

JSON goes through the json module; constructors through a tiny ast whitelist of
numeric literal arguments. Sizes are checked before anything is allocated.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import limits
from .errors import LimitError, ValueInputError

CONSTRUCTORS = "zeros(2,3) ones(2,2) full(2,2,0.5) eye(3) arange(5) linspace(0,1,11) rand(3) randn(2,2)"


class SeededRandom:
    """np.random.default_rng(seed), made on first use.

    Importing numpy.random takes ~15 ms, a tenth of a command's start-up, and only
    rand()/randn() VALUEs need it. One instance serves a whole command, so two rand(3)
    VALUEs draw different numbers, reproducibly for a given seed.
    """

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._generator: np.random.Generator | None = None

    @property
    def generator(self) -> np.random.Generator:
        if self._generator is None:
            # torch.manual_seed takes -2**63 .. 2**64-1 and wraps negatives to 64 bits; so do we.
            self._generator = np.random.default_rng(self.seed % 2**64)
        return self._generator

    def random(self, shape: tuple[int, ...]) -> np.ndarray:
        return self.generator.random(shape)

    def standard_normal(self, shape: tuple[int, ...]) -> np.ndarray:
        return self.generator.standard_normal(shape)


if TYPE_CHECKING:  # evaluated at run time, np.random would import numpy.random
    Random = np.random.Generator | SeededRandom  # what rand()/randn() draw from


def _shape_elements(shape: tuple[int, ...], text: str) -> None:
    """Refuse a size before anything is allocated: 10**10 elements must cost nothing."""
    if any(n < 0 for n in shape):
        raise ValueInputError(f"negative size in {text!r}")
    count = math.prod(shape)
    if count > limits.MAX_ELEMENTS:
        raise LimitError(
            f"{text!r} would have {limits.count_text(count)} elements, "
            f"over the limit MAX_ELEMENTS={limits.MAX_ELEMENTS:,}"
        )


def _ints(args: list[float], text: str) -> tuple[int, ...]:
    # inf and nan are numbers to Python but never sizes (int(inf) raises).
    if any(not math.isfinite(a) or a != int(a) for a in args):
        raise ValueInputError(f"sizes must be whole numbers in {text!r}")
    return tuple(int(a) for a in args)


def _arange(args: list[float], text: str, rng: Random) -> np.ndarray:
    if not 1 <= len(args) <= 3:
        raise ValueInputError(f"arange takes 1 to 3 numbers: {text!r}")
    if not all(math.isfinite(a) for a in args):
        raise ValueInputError(f"arange takes finite numbers: {text!r}")
    start, stop, step = (0.0, args[0], 1.0) if len(args) == 1 else (args + [1.0])[:3]
    if step == 0:
        raise ValueInputError(f"arange step must not be zero: {text!r}")
    span = stop / step - start / step  # not (stop - start) / step, which overflows near 1e308
    if not math.isfinite(span):  # arange(0, 1, 1e-320): too many to count
        raise LimitError(
            f"{text!r} would have more than {limits.MAX_ELEMENTS:,} elements, "
            f"over the limit MAX_ELEMENTS={limits.MAX_ELEMENTS:,}"
        )
    count = max(0, math.ceil(span))
    _shape_elements((count,), text)
    try:
        return np.arange(start, stop, step, dtype=np.float64)
    except ValueError:  # NumPy's own size computation overflows near 1e308
        # Halved, i*step stays finite wherever the value itself is; halving is exact.
        with np.errstate(all="ignore"):
            return 2 * (start / 2 + (step / 2) * np.arange(count, dtype=np.float64))


def _linspace(args: list[float], text: str, rng: Random) -> np.ndarray:
    if len(args) != 3:
        raise ValueInputError(f"linspace takes start, stop, count: {text!r}")
    (count,) = _ints([args[2]], text)
    _shape_elements((count,), text)
    with np.errstate(all="ignore"):  # linspace(-1e308, 1e308, 3) overflows to inf, as in torch
        return np.linspace(args[0], args[1], count)


def _eye(args: list[float], text: str, rng: Random) -> np.ndarray:
    if not 1 <= len(args) <= 2:
        raise ValueInputError(f"eye takes 1 or 2 sizes: {text!r}")
    shape = _ints(args, text)
    _shape_elements((shape[0], shape[-1]), text)
    return np.eye(shape[0], shape[-1])


def _full(args: list[float], text: str, rng: Random) -> np.ndarray:
    if not args:
        raise ValueInputError(f"full takes sizes then a fill value: {text!r}")
    shape = _ints(args[:-1], text)
    _shape_elements(shape, text)
    return np.full(shape, args[-1])


def _sized(make: Callable[[Random, tuple[int, ...]], np.ndarray]):
    """A constructor whose arguments are all sizes."""

    def build(args: list[float], text: str, rng: Random) -> np.ndarray:
        shape = _ints(args, text)
        _shape_elements(shape, text)
        return make(rng, shape)

    return build


_CONSTRUCTORS: dict[str, Callable[[list[float], str, Random], np.ndarray]] = {
    "zeros": _sized(lambda rng, shape: np.zeros(shape)),
    "ones": _sized(lambda rng, shape: np.ones(shape)),
    "full": _full,
    "eye": _eye,
    "arange": _arange,
    "linspace": _linspace,
    "rand": _sized(lambda rng, shape: rng.random(shape)),
    "randn": _sized(lambda rng, shape: rng.standard_normal(shape)),
}


def _number(node: ast.AST, text: str) -> float:
    sign = 1.0
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign *= -1.0 if isinstance(node.op, ast.USub) else 1.0
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        try:
            return sign * float(node.value)
        except OverflowError:
            return sign * math.inf
    raise ValueInputError(f"constructor arguments must be numbers: {text!r}")


def _constructor(text: str, rng: Random) -> np.ndarray:
    try:
        with warnings.catch_warnings():  # zeros('\d') must not print Python's SyntaxWarning
            warnings.simplefilter("ignore")
            tree = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ValueInputError(_bad(text)) from None
    if not (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name)) or tree.keywords:
        raise ValueInputError(_bad(text))
    name = tree.func.id
    if name not in _CONSTRUCTORS:
        raise ValueInputError(f"unknown constructor {name!r}; known: {CONSTRUCTORS}")
    args = [_number(a, text) for a in tree.args]
    return _CONSTRUCTORS[name](args, text, rng)


def _bad(text: str, column: int | None = None, reason: str | None = None) -> str:
    shown = text if len(text) <= 40 else text[:37] + "..."
    if column is not None and 1 <= column <= len(text):
        character = text[column - 1]
        why = f" ({reason})" if reason else ""
        return (
            f"cannot read value {shown!r}: {character!r} at column {column} is not understood{why}; "
            f"give a number (3, -0.5, 1e-3, pi/2), a list ([1, 2]) or one of {CONSTRUCTORS}"
        )
    return f"cannot read value {shown!r}: give a number, a JSON array or one of {CONSTRUCTORS}"


NON_FINITE = ("nan", "inf", "-inf")  # as gradcli's strict JSON output writes them
_WORDS = {"nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}
_MAX_DIMS = 32  # NumPy's own ceiling is 64; PyTorch's is 25 for most ops


def literal_dtype(obj: Any) -> str:
    """The dtype torch.tensor infers for a literal: bool if every element is a bool, int64 if
    every one is an int (bools among them), else floating ("float"); arrays keep their kind."""
    if isinstance(obj, np.ndarray):
        return {"b": "bool", "i": "int64", "u": "int64"}.get(obj.dtype.kind, "float")
    kinds: set[str] = set()
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, (bool, np.bool_)):
            kinds.add("bool")
        elif isinstance(item, (int, np.integer)):
            kinds.add("int64")
        else:
            return "float"
    if not kinds:
        return "float"  # torch.tensor([]) is float32, the default dtype
    return "bool" if kinds == {"bool"} else "int64"


def _check_numeric(obj: Any, what: str, bools: bool = False) -> None:
    """Every leaf a real number, nesting no deeper than a tensor can be (walked without recursion).

    `bools`: True and False are values too (a --const mask, as torch.tensor([True]) reads it)."""
    stack = [(obj, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple)):
            if depth >= _MAX_DIMS:
                raise ValueInputError(
                    f"{what} is nested more than {_MAX_DIMS} deep; a tensor has fewer dimensions"
                )
            stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, str) and item in NON_FINITE:
            continue  # gradcli's own JSON writes nan/inf as strings; read them back
        elif bools and isinstance(item, (bool, np.bool_)):
            continue
        elif isinstance(item, bool) or not isinstance(item, (int, float, np.integer, np.floating)):
            shown = json.dumps(item) if isinstance(item, (str, dict, bool, type(None))) else repr(item)
            raise ValueInputError(f"{what} contains {shown[:40]}, which is not a number")


def to_array(obj: Any, dtype: np.dtype, what: str = "value", keep: bool = False) -> np.ndarray:
    """A Python number / nested list / array as a float array of `dtype`, checked.

    keep=True (a --const, or a VALUE as read) keeps what torch.tensor would infer from the
    literal: int64 for integers (class indices), bool for True/False (masks)."""
    if keep and literal_dtype(obj) != "float":
        return _typed(obj, what)
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "b":  # a VALUE read as bools, given where numbers are needed (--at)
            raise ValueInputError(f"{what} contains {json.dumps(bool(obj.flat[0]))}, which is not a number")
        if obj.dtype.kind not in "iuf":
            raise ValueInputError(f"{what} must be real numbers, not {obj.dtype}")
        limits.check(obj.size, limits.MAX_ELEMENTS, f"{what} elements", "MAX_ELEMENTS")
        return obj.astype(dtype, copy=False)  # no 80 MB copy of a 10M-element input
    _check_numeric(obj, what)
    try:
        with np.errstate(all="ignore"):
            array = np.array(obj, dtype=np.float64)
    except OverflowError:  # an integer past float's range, as in [10**400]
        raise ValueInputError(f"{what} has an integer too large for a float") from None
    except ValueError:
        raise ValueInputError(f"{what} is a ragged array: every row must have the same length") from None
    limits.check(array.size, limits.MAX_ELEMENTS, f"{what} elements", "MAX_ELEMENTS")
    with np.errstate(all="ignore"):
        return array.astype(dtype)


def _typed(obj: Any, what: str) -> np.ndarray:
    """An integer or bool literal as torch.tensor holds it (int64, bool)."""
    kind = literal_dtype(obj)
    if not isinstance(obj, np.ndarray):
        _check_numeric(obj, what, bools=True)
    try:
        array = np.array(obj, dtype=np.bool_ if kind == "bool" else np.int64)
    except OverflowError:  # [10**400]: torch.tensor says "Overflow when unpacking long"
        raise ValueInputError(f"{what} has an integer too large for a float") from None
    except ValueError:
        raise ValueInputError(f"{what} is a ragged array: every row must have the same length") from None
    limits.check(array.size, limits.MAX_ELEMENTS, f"{what} elements", "MAX_ELEMENTS")
    return array


def parse_value(text: str, dtype: np.dtype = np.float64, rng: Random | None = None) -> np.ndarray:
    """Read one VALUE as given on the command line."""
    text = text.strip()
    if not text:
        raise ValueInputError("empty value; give a number, a JSON array or a constructor such as zeros(2,3)")
    limits.check(len(text), limits.MAX_VALUE_CHARS, "value length in characters", "MAX_VALUE_CHARS")
    if text.lower() in _WORDS:  # nan, inf, -inf, NaN, Infinity: as float() reads them
        return np.array(float(text), dtype=dtype)
    if _CALL.match(text):
        rng = rng if rng is not None else SeededRandom(0)
        return _constructor(text, rng).astype(dtype, copy=False)
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError):
        # ValueError: a JSON integer past Python's 4,300-digit conversion limit.
        # Not JSON: numbers as a Python user types them (3., .5, +1, pi/2, (1, 2)).
        obj = _arithmetic(text)
    # Integers and bools stay as torch.tensor reads them; an --at value becomes floating later.
    return to_array(obj, dtype, f"value {text[:40]!r}", keep=True)


_CALL = re.compile(r"[A-Za-z_]\w*\s*\(")
_MAX_ARITHMETIC_CHARS = 100_000  # typed by hand; machine-made arrays are JSON, read much faster


def _arithmetic(text: str) -> Any:
    """A number or nested list/tuple of numbers written in the program language's arithmetic.

    Python's parser finds the brackets; each element is then read by gradcli's own program
    parser and folded as a program's number-only sub-expressions are (1/3, -pi/2, 2**0.5),
    so nothing is evaluated that a program could not hold, and nothing is executed.
    """
    if len(text) > _MAX_ARITHMETIC_CHARS:
        raise ValueInputError(_bad(text))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        from .parse import near_miss

        raise ValueInputError(_bad(text, exc.offset, exc.msg), hint=near_miss(text, names=False)) from None
    except (ValueError, RecursionError, MemoryError):
        raise ValueInputError(_bad(text)) from None
    try:
        return _elements(tree, text)
    except RecursionError:
        raise ValueInputError(f"value {text[:40]!r} is nested too deeply") from None


def _elements(node: ast.AST, text: str) -> Any:
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_elements(item, text) for item in node.elts]
    segment = ast.get_source_segment(text, node) or ""
    from .errors import GradcliError
    from .parse import parse_program

    try:
        program = parse_program(segment)
        if len(program.statements) != 1 or program.statements[0].target is not None:
            raise ValueInputError("one number is expected")
        return _fold(program.statements[0].expr)
    except GradcliError as exc:
        column = getattr(exc, "column", None)
        where = node.col_offset + column if column is not None else node.col_offset + 1
        reason = exc.message.split(": ", 1)[-1] if column is not None else exc.message
        raise ValueInputError(_bad(text, where, reason), hint=exc.hint) from None


def _fold(expr: Any) -> float:
    """A number-only expression of the program language, as the graph folds one."""
    from .graph import fold
    from .ops import REGISTRY
    from .program import Apply, Num, Ref

    if isinstance(expr, Num):
        return expr.value
    if isinstance(expr, Ref):
        if expr.name in ("inf", "nan"):
            return float(expr.name)
        raise ValueInputError(f"'{expr.name}' is not a number")
    assert isinstance(expr, Apply)
    op = REGISTRY.get(expr.op)
    if op is None or not op.elementwise:
        raise ValueInputError(f"{expr.op}() does not give a number here")
    return fold(op, [_fold(arg) for arg in expr.args], {})
