"""NumPy in `run`, as tutorials use it beside torch: arrays made by `np.array`, `arange`,
`linspace`, `zeros`, ...; the elementwise math, reductions and products they call; `np.random`'s
legacy generator and `default_rng`; `torch.from_numpy` / `.numpy()` sharing memory.

NumPy itself computes and prints every result, so values, dtypes and text are NumPy's own. What
this room adds is the fence: each function is named in `FUNCTIONS` with the rule that sizes its
result from its arguments' shapes, and the result is weighed against the script's caps before
NumPy makes it. Arguments are numbers, nested lists of numbers, arrays and dtypes; arrays hold
numbers and booleans only (no object or string arrays, no pickle)."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import limits
from . import bounds, runtime
from .runtime import ScriptError, ScriptRuntimeError, Tensor
from .values import Function
from .whitelist import source_position

# NumPy's scalar types a script names: np.float32 as a dtype, np.float32(0.5) as a number.
TYPES = frozenset(
    {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_", "double", "single"}
)
_KINDS = "biuf"  # boolean, signed, unsigned, floating: the arrays a script may hold
# torch's dtypes that gradcli's tensors have, by NumPy dtype name
TENSOR_DTYPES = frozenset({"float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"})
NEGATIVE_STRIDES = (
    "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
    "currently supported. (You can probably work around this by making a copy of your array  with array.copy().) "
)

Sizer = Callable[[list, dict], int]  # (args, kwargs) -> elements of the result (an upper bound)


def _shape(value: Any) -> tuple[int, ...]:
    try:
        return np.shape(value)
    except ValueError:  # a ragged list: NumPy's own error follows when the call runs
        return (len(value),) if isinstance(value, (list, tuple)) else ()


def _size(value: Any) -> int:
    return math.prod(_shape(value))


def _broadcast(args: list, kwargs: dict) -> int:
    """Elementwise functions: the broadcast shape of every array-like argument."""
    shapes = [_shape(a) for a in [*args, *kwargs.values()] if _array_like(a)]
    try:
        return math.prod(np.broadcast_shapes(*shapes)) if shapes else 1
    except ValueError:
        return 1  # NumPy's own error follows


def _first(args: list, kwargs: dict) -> int:
    """Reductions, sorts, reshapes and copies: at most the first argument's elements."""
    return _size(args[0]) if args else 1


def _joined(args: list, kwargs: dict) -> int:
    """concatenate / stack / hstack / vstack: the sum of the pieces."""
    pieces = args[0] if args and isinstance(args[0], (list, tuple)) else []
    return sum(_size(p) for p in pieces)


def _count(value: Any) -> int:
    """A size argument: an int, or a tuple of ints; anything else NumPy refuses."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return max(int(value), 0)
    if isinstance(value, (list, tuple)) and all(
        isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in value
    ):
        if len(value) > 64:
            return limits.MAX_ELEMENTS + 1
        return math.prod(max(int(n), 0) for n in value)
    return 1


def _sized(position: int, name: str = "shape") -> Sizer:
    def size(args: list, kwargs: dict) -> int:
        value = args[position] if len(args) > position else kwargs.get(name)
        return _count(value) if value is not None else 1

    return size


def _eye(args: list, kwargs: dict) -> int:
    n = args[0] if args else kwargs.get("N", 1)
    m = args[1] if len(args) > 1 else kwargs.get("M")
    return _count(n) * _count(n if m is None else m)


def _arange(args: list, kwargs: dict) -> int:
    numbers = [a for a in args if isinstance(a, (int, float, np.number)) and not isinstance(a, bool)]
    start, stop, step = 0.0, 0.0, 1.0
    if len(numbers) == 1:
        stop = numbers[0]
    elif len(numbers) >= 2:
        start, stop = numbers[0], numbers[1]
        step = numbers[2] if len(numbers) > 2 else kwargs.get("step", 1.0)
    stop = kwargs.get("stop", stop)
    if (
        not isinstance(step, (int, float, np.number))
        or step == 0
        or not all(math.isfinite(float(v)) for v in (start, stop, step))
    ):
        return 1  # NumPy's own error follows
    return max(math.ceil((float(stop) - float(start)) / float(step)), 0)


def _linspace(args: list, kwargs: dict) -> int:
    num = args[2] if len(args) > 2 else kwargs.get("num", 50)
    return _count(num)


def contracted(args: list, kwargs: dict) -> int:
    """dot / matmul / inner: the multiply-adds (the result's elements times the summed length)."""
    if len(args) < 2:
        return 1
    a, b = _shape(args[0]), _shape(args[1])
    if not a or not b:
        return math.prod(a) * math.prod(b)
    return math.prod(a) * math.prod(b) // max(b[0] if len(b) == 1 else b[-2], 1)


def _product(args: list, kwargs: dict) -> int:
    """dot / matmul / inner's result: at most the elements the operands' outer dims give."""
    if len(args) < 2:
        return 1
    a, b = _shape(args[0]), _shape(args[1])
    inner = max(a[-1], 1) if a and b else 1
    return math.prod(a) * math.prod(b) // inner // inner if a and b else math.prod(a) * math.prod(b)


def _outer(args: list, kwargs: dict) -> int:
    return _size(args[0]) * _size(args[1]) if len(args) >= 2 else 1


def _tile(args: list, kwargs: dict) -> int:
    reps = args[1] if len(args) > 1 else kwargs.get("reps", 1)
    return _first(args, kwargs) * _count(reps)


def _repeat(args: list, kwargs: dict) -> int:
    repeats = args[1] if len(args) > 1 else kwargs.get("repeats", 1)
    if isinstance(repeats, (list, tuple, np.ndarray)):
        return _first(args, kwargs) * max([_count(int(r)) for r in np.ravel(repeats)] or [1])
    return _first(args, kwargs) * _count(repeats)


def _choice(args: list, kwargs: dict) -> int:
    """choice(a, size): `size` draws; without replacement the legacy generator permutes all of
    a population given as a number first."""
    drawn = _sized(1, "size")(args, kwargs)
    population = args[0] if args else kwargs.get("a")
    replace = args[2] if len(args) > 2 else kwargs.get("replace", True)
    if not replace and isinstance(population, (int, np.integer)):
        return max(drawn, _count(population))
    return drawn


def _diff(args: list, kwargs: dict) -> int:
    """diff(a, n): n passes over a (NumPy loops n times even once nothing is left)."""
    n = args[1] if len(args) > 1 else kwargs.get("n", 1)
    return _first(args, kwargs) * (_count(n) if _count(n) > 0 else 1) + _count(n) * 1_000


def _meshgrid(args: list, kwargs: dict) -> int:
    return len(args) * math.prod(_size(a) for a in args)


def _diag(args: list, kwargs: dict) -> int:
    n = _size(args[0]) if args else 1
    return n * n if len(_shape(args[0])) == 1 else n


@dataclass(frozen=True)
class Call:
    """One NumPy function a script may call: how big its result can be, the element operations
    it does (its result's size unless said), and its keywords."""

    size: Sizer
    keywords: frozenset[str] = frozenset()
    work: Sizer | None = None


_UFUNC = frozenset({"out", "dtype"})
_REDUCE = frozenset({"axis", "keepdims", "dtype", "ddof", "out"})
_UNARY = """sin cos tan arcsin arccos arctan sinh cosh tanh exp exp2 expm1 log log2 log10 log1p sqrt
    square abs absolute fabs sign floor ceil rint trunc negative positive reciprocal isnan isinf
    isfinite logical_not cbrt deg2rad rad2deg degrees radians signbit"""
_BINARY = """add subtract multiply divide true_divide floor_divide power float_power mod remainder fmod
    maximum minimum fmax fmin arctan2 hypot greater greater_equal less less_equal equal not_equal
    logical_and logical_or logical_xor heaviside copysign"""
_REDUCTIONS = """sum mean std var max min amax amin argmax argmin prod median any all average
    count_nonzero ptp cumsum cumprod nansum nanmean nanmax nanmin sort argsort unique ravel
    transpose squeeze expand_dims flip reshape copy asarray array nonzero argwhere trace
    flatnonzero diff round around shape ndim size isclose allclose array_equal"""

FUNCTIONS: dict[str, Call] = {
    **{name: Call(_broadcast, _UFUNC) for name in _UNARY.split()},
    **{name: Call(_broadcast, _UFUNC) for name in _BINARY.split()},
    **{name: Call(_first, _REDUCE) for name in _REDUCTIONS.split()},
    "where": Call(_broadcast),
    "clip": Call(_broadcast, frozenset({"out", "a_min", "a_max", "min", "max"})),
    "isclose": Call(_broadcast, frozenset({"rtol", "atol", "equal_nan"})),
    "allclose": Call(_broadcast, frozenset({"rtol", "atol", "equal_nan"})),
    "array_equal": Call(_broadcast, frozenset({"equal_nan"})),
    "array": Call(_first, frozenset({"dtype", "copy", "ndmin"})),
    "asarray": Call(_first, frozenset({"dtype"})),
    "ascontiguousarray": Call(_first, frozenset({"dtype"})),
    "sort": Call(_first, frozenset({"axis", "kind"})),
    "argsort": Call(_first, frozenset({"axis", "kind"})),
    "unique": Call(_first, frozenset({"return_index", "return_inverse", "return_counts", "axis"})),
    "reshape": Call(_first, frozenset({"newshape", "shape", "order"})),
    "transpose": Call(_first, frozenset({"axes"})),
    "squeeze": Call(_first, frozenset({"axis"})),
    "expand_dims": Call(_first, frozenset({"axis"})),
    "flip": Call(_first, frozenset({"axis"})),
    "round": Call(_first, frozenset({"decimals", "out"})),
    "around": Call(_first, frozenset({"decimals", "out"})),
    "diff": Call(_first, frozenset({"n", "axis"}), _diff),
    "zeros": Call(_sized(0), frozenset({"dtype"})),
    "ones": Call(_sized(0), frozenset({"dtype"})),
    "empty": Call(_sized(0), frozenset({"dtype"})),
    "full": Call(_sized(0), frozenset({"fill_value", "dtype"})),
    "zeros_like": Call(_first, frozenset({"dtype", "shape"})),
    "ones_like": Call(_first, frozenset({"dtype", "shape"})),
    "empty_like": Call(_first, frozenset({"dtype", "shape"})),
    "full_like": Call(_first, frozenset({"fill_value", "dtype", "shape"})),
    "eye": Call(_eye, frozenset({"N", "M", "k", "dtype"})),
    "identity": Call(lambda a, k: _count(a[0]) ** 2 if a else 1, frozenset({"dtype"})),
    "arange": Call(_arange, frozenset({"start", "stop", "step", "dtype"})),
    "linspace": Call(_linspace, frozenset({"num", "endpoint", "dtype", "retstep", "axis"})),
    "logspace": Call(_linspace, frozenset({"num", "endpoint", "base", "dtype", "axis"})),
    "dot": Call(_product, frozenset({"out"}), contracted),
    "matmul": Call(_product, frozenset({"out", "dtype"}), contracted),
    "inner": Call(_product, frozenset(), contracted),
    "vdot": Call(_first),
    "outer": Call(_outer, frozenset({"out"})),
    "concatenate": Call(_joined, frozenset({"axis", "dtype"})),
    "stack": Call(_joined, frozenset({"axis", "dtype"})),
    "hstack": Call(_joined, frozenset({"dtype"})),
    "vstack": Call(_joined, frozenset({"dtype"})),
    "column_stack": Call(_joined),
    "tile": Call(_tile, frozenset({"reps"})),
    "repeat": Call(_repeat, frozenset({"repeats", "axis"})),
    "meshgrid": Call(_meshgrid, frozenset({"indexing"})),
    "diag": Call(_diag, frozenset({"k"})),
}


# np.linalg: the norms tutorials compare gradients with
def _cubed(args: list, kwargs: dict) -> int:
    """inv / det / solve / lstsq: about n^3 operations on an n x n matrix (or m x n)."""
    shape = _shape(args[0]) if args else ()
    return math.prod(shape) * max(shape[-2:] or (1,)) + 1_000


LINALG = {
    "norm": Call(_first, frozenset({"ord", "axis", "keepdims"})),
    "inv": Call(_first, frozenset(), _cubed),
    "pinv": Call(_first, frozenset({"rcond", "hermitian"}), _cubed),
    "det": Call(_first, frozenset(), _cubed),
    "solve": Call(lambda a, k: _size(a[1]) if len(a) > 1 else 1, frozenset(), _cubed),
    "lstsq": Call(lambda a, k: sum(_size(v) for v in a[:2]), frozenset({"rcond"}), _cubed),
}

# np.random's legacy functions (one RandomState per run, seeded by np.random.seed) and the
# methods of a default_rng Generator: how each takes its result's size
_DIMS = lambda args, kwargs: _count(tuple(args)) if args else 1  # noqa: E731  rand(2, 3)
RANDOM = {
    "seed": Call(lambda a, k: 1),
    "rand": Call(_DIMS),
    "randn": Call(_DIMS),
    "random": Call(_sized(0, "size")),
    "random_sample": Call(_sized(0, "size")),
    "sample": Call(_sized(0, "size")),
    "standard_normal": Call(_sized(0, "size")),
    "normal": Call(_sized(2, "size"), frozenset({"loc", "scale", "size"})),
    "uniform": Call(_sized(2, "size"), frozenset({"low", "high", "size"})),
    "randint": Call(_sized(2, "size"), frozenset({"low", "high", "size", "dtype"})),
    "integers": Call(_sized(2, "size"), frozenset({"low", "high", "size", "dtype", "endpoint"})),
    "exponential": Call(_sized(1, "size"), frozenset({"scale", "size"})),
    "binomial": Call(_sized(2, "size"), frozenset({"n", "p", "size"})),
    "poisson": Call(_sized(1, "size"), frozenset({"lam", "size"})),
    "choice": Call(_sized(1, "size"), frozenset({"a", "size", "replace", "p"}), _choice),
    "permutation": Call(lambda a, k: _count(a[0]) if a and isinstance(a[0], int) else _first(a, k)),
    "shuffle": Call(lambda a, k: 1),
}
# a.sum(axis=0), a.reshape(2, 3), a.astype(np.float32): methods of an array (FUNCTIONS's where
# they are NumPy's functions of the array)
ARRAY_METHODS = frozenset(
    [
        "reshape",
        "astype",
        "copy",
        "sum",
        "mean",
        "std",
        "var",
        "max",
        "min",
        "argmax",
        "argmin",
        "prod",
        "cumsum",
        "cumprod",
        "all",
        "any",
        "round",
        "clip",
        "dot",
        "transpose",
        "flatten",
        "ravel",
        "squeeze",
        "tolist",
        "item",
        "fill",
        "sort",
        "argsort",
        "nonzero",
        "repeat",
    ]
)
GENERATOR_METHODS = frozenset(RANDOM) - {"seed", "rand", "randn", "random_sample", "sample", "randint"}
LEGACY_RANDOM = frozenset(RANDOM) - {"integers"}


# the words a script may give NumPy: dtype names of numbers, and options of the functions here
_OPTIONS = frozenset(
    {"C", "F", "A", "K", "ij", "xy", "stable", "quicksort", "mergesort", "heapsort", "fro", "nuc"}
)


def _option(word: str, line: int) -> str:
    """A string argument: a numeric dtype's name or an option word; never data (a string array
    of MAX_ELEMENTS items would take gigabytes before it could be refused)."""
    if word in _OPTIONS:
        return word
    try:
        kind = np.dtype(word).kind
    except TypeError:
        kind = None
    if kind is None or kind not in _KINDS:
        raise ScriptError(
            f"line {line}: {word!r} is not a NumPy dtype of numbers or an option gradcli run passes to NumPy"
        )
    return word


def _array_like(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic, list, tuple)) or (
        isinstance(value, (int, float)) and not isinstance(value, bool)
    )


class ArrayFlags(dict):
    """a.flags: its flags by name (a.flags['C_CONTIGUOUS']), printed as NumPy prints them."""

    def __init__(self, array: np.ndarray) -> None:
        flags = array.flags
        names = ("C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE", "ALIGNED", "WRITEBACKIFCOPY")
        super().__init__({name: bool(flags[name]) for name in names})
        self.text = str(flags)


@dataclass(eq=False)
class NumpyGenerator:
    """What np.random.default_rng(seed) gives: NumPy's PCG64 Generator, called through RANDOM."""

    engine: np.random.Generator

    def __repr__(self) -> str:
        return "Generator(PCG64) at 0x7F0000000000"


@dataclass(frozen=True)
class NumpyType:
    """np.float32 and friends: a dtype argument, and a function of one number."""

    name: str

    @property
    def numpy(self) -> type:
        return getattr(np, self.name)

    def __repr__(self) -> str:
        return f"<class 'numpy.{np.dtype(self.numpy).name if self.name != 'bool_' else 'bool'}'>"


_SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "** or pow()", ast.MatMult: "@",
}  # fmt: skip


class NumpyArrays:
    """Mixed into Interpreter: NumPy's functions, array methods and items, np.random."""

    numpy_random: np.random.RandomState | None = None

    # -- names ----------------------------------------------------------------------

    def numpy_attribute(self, module: str, name: str, node: ast.AST) -> Any:
        """np.NAME, np.random.NAME, np.linalg.NAME, or None when NumPy's namespace has no such
        function here."""
        if module == "numpy":
            if name in TYPES:
                return NumpyType(name)
            if name == "newaxis":
                return None
            if name in FUNCTIONS:
                return Function("numpy", name)
        if module == "numpy.random" and name in [*LEGACY_RANDOM, "default_rng"]:
            return Function("numpy.random", name)
        if module == "numpy.linalg" and name in LINALG:
            return Function("numpy.linalg", name)
        return None

    # -- calls ----------------------------------------------------------------------

    def numpy_call(self, module: str, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        if module == "numpy.random":
            if name == "default_rng":
                seed = self.numpy_arguments(args, kwargs, node)[0]
                if not seed or seed[0] is None:
                    self.note_unseeded("numpy", "np.random.default_rng(n)")
                return NumpyGenerator(self.python(lambda: np.random.default_rng(*seed)))
            if self.numpy_random is None:  # unseeded, as NumPy's is: fresh numbers every run
                self.numpy_random = np.random.RandomState()
            if name == "shuffle" and len(args) == 1 and isinstance(args[0], list):
                # np.random.shuffle(a_list) shuffles the script's own list, in place
                order = list(range(len(args[0])))  # the same swaps, whatever the items are
                self.weigh_array(len(order))
                self.python(lambda: self.numpy_random.shuffle(order))
                args[0][:] = [args[0][i] for i in order]
                drawn = None
            else:
                drawn = self.numpy_run(
                    f"random.{name}", RANDOM[name], getattr(self.numpy_random, name), args, kwargs, node
                )
            if name == "seed":
                self.seeded.add("numpy")
            self.note_unseeded("numpy", "np.random.seed(n)")  # after the draw: a refused one draws nothing
            return drawn
        if module == "numpy.linalg":
            return self.numpy_run(
                f"linalg.{name}", LINALG[name], getattr(np.linalg, name), args, kwargs, node
            )
        if name in ("array", "asarray", "ascontiguousarray") and args and isinstance(args[0], Tensor):  # torch's __array__
            args = [self.tensor_array(args[0], copy=name == "array"), *args[1:]]
        return self.numpy_run(name, FUNCTIONS[name], getattr(np, name), args, kwargs, node)

    def numpy_type_call(self, kind: NumpyType, args: list, kwargs: dict) -> Any:
        """np.float32(0.5): one number (or an array) in that type."""
        if kwargs or len(args) > 1:
            raise ScriptRuntimeError(f"{kind.name}() takes at most 1 argument", "TypeError")
        values, _ = self.numpy_arguments(args, {}, None)
        self.weigh_array(_first(values, {}))  # np.float32(array) converts a copy
        return self.numpy_result(self.python(lambda: kind.numpy(*values)))

    def numpy_generator_method(
        self, generator: NumpyGenerator, name: str, args: list, kwargs: dict, node: ast.AST
    ) -> Any:
        return self.numpy_run(
            f"Generator.{name}", RANDOM[name], getattr(generator.engine, name), args, kwargs, node
        )

    def numpy_run(
        self, title: str, call: Call, function: Any, args: list, kwargs: dict, node: ast.AST
    ) -> Any:
        """Check the arguments, weigh the result's size against the caps, then let NumPy run."""
        unknown = sorted(set(kwargs) - call.keywords)
        if unknown:
            raise ScriptRuntimeError(
                f"{title}() got an unexpected keyword argument '{unknown[0]}'", "TypeError"
            )
        args, kwargs = self.numpy_arguments(args, kwargs, node)
        out = kwargs.get("out")
        if out is not None and not isinstance(out, np.ndarray):
            raise ScriptRuntimeError("return arrays must be of ArrayType", "TypeError")
        self.weigh_array(call.size(args, kwargs), call.work(args, kwargs) if call.work else None)
        return self.numpy_result(self.python(lambda: function(*args, **kwargs)))

    def numpy_arguments(self, args: list, kwargs: dict, node: ast.AST | None) -> tuple[list, dict]:
        """Script values as NumPy takes them: numbers, lists, arrays, dtypes; no tensors
        (NumPy would call back into torch), no objects."""
        where = f"{source_position(node)}: " if node is not None else f"line {self.line}: "

        def plain(value: Any, inside: bool = False) -> Any:
            if isinstance(value, NumpyType):
                return value.numpy
            if isinstance(value, Function) and value.module == "" and value.name in ("float", "int", "bool"):
                return {"float": float, "int": int, "bool": bool}[value.name]
            if isinstance(value, Tensor):
                if inside:  # [loss1, loss2]: NumPy reads each tensor through torch's __array__
                    return self.tensor_array(value, copy=True)
                raise ScriptError(
                    f"{where}NumPy functions take arrays here, not tensors: call .numpy() on the tensor "
                    "(or use the torch function)"
                )
            if isinstance(value, range):
                bounds.check_range(value, self.line)
                return value
            if isinstance(value, (list, tuple)):
                bounds.measure(value, self.line)
                items = [plain(v, True) for v in value]
                return tuple(items) if isinstance(value, tuple) else items
            if isinstance(value, str):
                return _option(value, self.line)
            if isinstance(value, np.ndarray):
                return value
            if isinstance(value, (int, float, bool, np.generic, slice)) or value is None:
                return value
            raise ScriptRuntimeError(
                f"NumPy does not take a {self.type_name(value)} argument here", "TypeError"
            )

        return [plain(a) for a in args], {k: plain(v) for k, v in kwargs.items()}

    def weigh_array(self, size: int, work: int | None = None) -> None:
        """A NumPy result of `size` elements against MAX_ELEMENTS, the work and memory caps."""
        if size > limits.MAX_ELEMENTS:
            raise ScriptError(
                f"line {self.line}: an array of {size:,} elements exceeds MAX_ELEMENTS={limits.MAX_ELEMENTS:,}"
            )
        if work is not None and work > limits.Script.MAX_SCRIPT_WORK:
            raise ScriptError(
                f"line {self.line}: {work:,} element operations in one NumPy call exceed "
                f"MAX_SCRIPT_WORK={limits.Script.MAX_SCRIPT_WORK:,}"
            )
        runtime.spend(max(size, work or 0) + 1_000)
        if size >= 1_000_000:
            runtime.MEMORY_CHECK[0](size * 8)

    def numpy_result(self, value: Any) -> Any:
        """A result a script may hold: arrays and scalars of numbers (tuples and lists of them)."""
        if isinstance(value, (tuple, list)):
            items = [self.numpy_result(v) for v in value]
            return tuple(items) if isinstance(value, tuple) else items
        if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind not in _KINDS:
            raise ScriptError(
                f"line {self.line}: NumPy arrays of {value.dtype} are not supported by gradcli run "
                "(numbers and booleans only)"
            )
        return value

    # -- arrays -----------------------------------------------------------------------

    def tensor_array(self, t: Tensor, *, copy: bool) -> np.ndarray:
        """np.array(t) / np.asarray(t): torch's __array__ (t.numpy(), refused for a tensor
        that requires grad)."""
        if t.requires_grad:
            raise ScriptRuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        if t.dtype == "bfloat16":
            raise ScriptRuntimeError("Got unsupported ScalarType BFloat16", "TypeError")
        return t.value.copy() if copy else self.export(t)

    def export(self, t: Tensor) -> np.ndarray:
        """t.numpy(): an array on the tensor's memory, so a write through either shows in both."""
        if t.dtype == "bfloat16":  # NumPy has no such dtype
            raise ScriptRuntimeError("Got unsupported ScalarType BFloat16", "TypeError")
        t.storage.export(t.version)
        return t.value

    def from_numpy(self, array: Any, *, share: bool = True, dtype: str | None = None) -> Tensor:
        """torch.from_numpy(a) (and as_tensor): a tensor on the array's memory."""
        if not isinstance(array, np.ndarray):
            raise ScriptRuntimeError(f"expected np.ndarray (got {self.type_name(array)})", "TypeError")
        if any(s < 0 for s in array.strides):
            raise ScriptRuntimeError(NEGATIVE_STRIDES, "ValueError")
        name = array.dtype.name
        if name not in TENSOR_DTYPES:
            raise ScriptError(
                f"line {self.line}: a NumPy array of {name} has no tensor dtype in gradcli run "
                "(float16/32/64, int8/16/32/64, uint8 and bool do)"
            )
        if not share or not array.flags.c_contiguous or (dtype is not None and dtype != name):
            return Tensor(array.copy(), dtype=dtype)
        t = Tensor(array)
        t.storage.base = array  # Tensor() took the array itself: make that explicit
        t._array = array
        t.storage.export(t.version)
        return t

    def array_method(self, array: Any, name: str, args: list, kwargs: dict, node: ast.AST) -> Any:
        """a.reshape(...), a.astype(np.float32), a.sum(axis=0), a.T ... as NumPy's functions
        (of an array, or of a NumPy number, which has the same methods)."""
        if isinstance(array, np.generic) and name in ("fill", "sort"):
            raise ScriptRuntimeError(
                f"'numpy.{array.dtype.name}' object has no attribute '{name}'", "AttributeError"
            )
        if name == "astype":
            values, rest = self.numpy_arguments(args, kwargs, node)
            if set(rest) - {"copy"}:
                raise ScriptRuntimeError("astype() got an unexpected keyword argument", "TypeError")
            result = self.python(lambda: array.astype(*values, **rest))
            return self.numpy_result(result)
        if name in ("tolist", "item"):
            values, _ = self.numpy_arguments(args, kwargs, node)
            if name == "tolist":
                self.check_length(" " * min(array.size, limits.Script.MAX_SEQUENCE + 1))
            return self.python(lambda: getattr(array, name)(*values))
        if name == "fill":
            values, _ = self.numpy_arguments(args, kwargs, node)
            return self.python(lambda: array.fill(*values))
        if name == "sort":  # in place
            values, rest = self.numpy_arguments(args, kwargs, node)
            self.weigh_array(array.size)
            return self.python(lambda: array.sort(*values, **rest))
        if name in ("reshape", "transpose") and len(args) > 1:
            args = [tuple(args)]  # a.reshape(2, 3) is a.reshape((2, 3))
        if name == "flatten":
            self.weigh_array(array.size)
            return self.python(lambda: array.flatten())
        if name == "copy":
            self.weigh_array(array.size)
            return self.python(lambda: array.copy())
        if name == "clip":
            kwargs = {"a_min" if k == "min" else "a_max" if k == "max" else k: v for k, v in kwargs.items()}
        return self.numpy_run(
            f"ndarray.{name}", FUNCTIONS[name], getattr(np, name), [array, *args], kwargs, node
        )

    def array_item(self, array: np.ndarray, key: Any) -> Any:
        """a[key]: NumPy's indexing; a fancy index is weighed first."""
        key = self.array_key(key)
        parts = key if isinstance(key, tuple) else (key,)
        fancy = [p for p in parts if isinstance(p, (np.ndarray, list))]
        if fancy:
            picked = max(_size(p) for p in fancy)
            self.weigh_array(picked * max(array.size // max(array.shape[0] if array.ndim else 1, 1), 1))
        return self.numpy_result(self.python(lambda: array[key]))

    def array_set_item(self, array: np.ndarray, key: Any, value: Any) -> None:
        """a[key] = value: written into the array (and so into a tensor sharing it)."""
        key = self.array_key(key)
        if isinstance(value, Tensor):
            value = self.tensor_array(value, copy=False)
        (value,), _ = self.numpy_arguments([value], {}, None)
        self.python(lambda: array.__setitem__(key, value))

    def array_key(self, key: Any) -> Any:
        parts = key if isinstance(key, tuple) else (key,)
        for part in parts:
            if not (
                isinstance(part, (int, slice, np.ndarray, np.integer, list))
                or part is None
                or part is Ellipsis
            ):
                raise ScriptRuntimeError(
                    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer "
                    "or boolean arrays are valid indices",
                    "IndexError",
                )
        (key,), _ = self.numpy_arguments([key], {}, None)
        return key

    def array_in_place(self, array: np.ndarray, op: Callable[[Any, Any], Any], other: Any) -> np.ndarray:
        """a += b: NumPy writes into a (a tensor sharing it sees the new values)."""
        (other,), _ = self.numpy_arguments([other], {}, None)
        self.weigh_array(_broadcast([array, other], {}))
        return self.python(lambda: op(array, other))

    # -- NumPy values beside tensors --------------------------------------------------

    def beside_tensor(self, value: Any, op: type, left: Any) -> Any:
        """A NumPy value in a tensor's arithmetic, as torch takes it: a NumPy number is a
        Python number; an array on the right is a tensor of its dtype (torch's __radd__ does
        not take one on the left: Python's TypeError)."""
        if isinstance(value, np.generic) and value.dtype.kind in "biuf":
            return value.item()
        if not isinstance(value, np.ndarray):
            return value
        if value is left:
            if op is ast.Add:
                raise ScriptRuntimeError(
                    "Concatenation operation is not implemented for NumPy arrays, use np.concatenate() "
                    "instead. Please do not rely on this error; it may not be given on all Python "
                    "implementations.",
                    "TypeError",
                )
            raise ScriptRuntimeError(
                f"unsupported operand type(s) for {_SYMBOLS.get(op, '?')}: 'numpy.ndarray' and 'Tensor'",
                "TypeError",
            )
        return self.from_numpy(value, share=False)

    def check_array_result(self, *operands: Any) -> None:
        """NumPy arithmetic on what .numpy() gave: the broadcast result is weighed against
        MAX_ELEMENTS, MAX_SCRIPT_WORK and MAX_SCRIPT_BYTES before NumPy makes it."""
        try:
            shape = np.broadcast_shapes(*(np.shape(o) for o in operands))
        except ValueError:
            return  # NumPy's own error follows
        self.weigh_array(math.prod(shape))

    def item_of(self, owner: Any, node: ast.Subscript) -> Any:
        """owner[key]: NumPy indexes its arrays; a NumPy index of a tensor is a tensor index."""
        if isinstance(owner, np.ndarray):
            return self.array_item(owner, self.index_value(node.slice))
        if isinstance(owner, Tensor):
            key = self.index_value(node.slice)
            parts = [
                self.from_numpy(k, share=False) if isinstance(k, np.ndarray) else k
                for k in (key if isinstance(key, tuple) else (key,))
            ]
            parts = [k.item() if isinstance(k, np.integer) else k for k in parts]
            return self.index_by(owner, tuple(parts) if isinstance(key, tuple) else parts[0], node)
        return self.subscript(owner, node)

    def tensor_dtype_of_numpy(self, name: str) -> str:
        if name not in TENSOR_DTYPES:
            raise ScriptError(
                f"line {self.line}: NumPy's {name} has no tensor dtype in gradcli run "
                "(float16/32/64, int8/16/32/64, uint8 and bool do)"
            )
        return name
