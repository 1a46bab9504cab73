"""Constructors inside a program: `torch.tensor([...])`, `torch.ones(3)`, `torch.arange(4)`, ...

A constructor makes a constant: a node with no operands and no gradient, whose value comes
from the call's literal arguments (checked by the parser, never evaluated as Python). Its
dtype is what torch gives it: `torch.tensor([2, 0, 1])` and `torch.arange(4)` are int64
(class indices), `[True, False]` bool (a mask), anything with a float in it floating, and
`dtype=` says otherwise. Floating constants hold the program's float dtype (`--dtype`), as
a `--const` does. NumPy's and JAX's spellings (`np.array`, `np.zeros`, `jnp.arange`) are
the same records.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ShapeError
from .core import Op, Param, Shape, Spelling, _fn
from .dtypes import BOOL, FLOAT, INT64
from .exact import round_to_odd, two_sum

DTYPE = Param("dtype", None, "dtype", keyword_only=True)
# requires_grad=True would make a leaf, and a program's leaves are its --at names
REQUIRES_GRAD = Param("requires_grad", False, "bool", keyword_only=True)


def _leaf_refused(requires_grad: bool) -> None:
    if requires_grad:
        raise ShapeError(
            "requires_grad=True makes a leaf, and a program's leaves are its --at names: "
            "write the tensor as an input (--at w=[1,2]), or use 'gradcli run' for a script"
        )


# ---------------------------------------------------------------- torch.tensor(data)


def data_shape(data: Any) -> Shape:
    """The shape of nested lists of numbers, with torch.tensor's errors for ragged ones."""
    shape: list[int] = []
    level = [data]
    dim = 0
    while True:
        sequences = [isinstance(item, tuple) for item in level]
        if not any(sequences):
            return tuple(shape)
        if not all(sequences):
            raise ShapeError("not a sequence")
        length = len(level[0])
        for item in level:
            if len(item) != length:
                raise ShapeError(f"expected sequence of length {length} at dim {dim} (got {len(item)})")
        shape.append(length)
        level = [element for item in level for element in item]
        dim += 1
        if not level:
            return tuple(shape)


def _flat(data: Any) -> list:
    items, stack = [], [data]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            stack.extend(reversed(item))
        else:
            items.append(item)
    return items


def data_dtype(data: Any) -> str:
    """torch.tensor's dtype for its literal: floating if any float, bool if all bool, else int64."""
    items = _flat(data)
    if not items or any(isinstance(v, float) for v in items):
        return FLOAT
    return BOOL if all(isinstance(v, bool) for v in items) else INT64


def _tensor(data: Any = (), dtype: str | None = None, requires_grad: bool = False) -> np.ndarray:
    values = np.array(data, dtype=np.float64).reshape(data_shape(data))
    return _cast(values, dtype)


def _cast(values: np.ndarray, dtype: str | None) -> np.ndarray:
    """A value as the given dtype holds it: int64 truncates toward zero, bool is `!= 0`."""
    if dtype == INT64:
        return np.trunc(values)
    if dtype == BOOL:
        return (values != 0).astype(np.float64)
    return values


def _data_text(data: Any) -> str:
    if isinstance(data, tuple):
        return "[" + ", ".join(_data_text(item) for item in data) + "]"
    return repr(data)


def _dtype_text(attrs: dict) -> str:
    dtype = attrs.get("dtype")
    return (
        "" if dtype is None else f", dtype=torch.{ {FLOAT: 'float64', INT64: 'long', BOOL: 'bool'}[dtype] }"
    )


# ---------------------------------------------------------------- sized constructors


def _size_shape(size: Shape = (), dtype: str | None = None, requires_grad: bool = False) -> Shape:
    _leaf_refused(requires_grad)
    for n in size:
        if n < 0:
            raise ShapeError(f"Trying to create tensor with negative dimension {n}: {list(size)}")
    return tuple(size)


def arange_count(start: float, end: float, step: float) -> int:
    """How many values torch.arange(start, end, step) holds, with its errors."""
    for name, value in (("start", start), ("end", end), ("step", step)):
        if value is None:  # arange(None): torch's TypeError
            raise ShapeError(f"arange(): argument '{name}' must be Number, not NoneType")
    if step == 0:
        raise ShapeError("step must be nonzero")
    if not all(math.isfinite(v) for v in (start, end)):
        raise ShapeError(f"unsupported range: {start:g} -> {end:g}")
    if (end - start) * step < 0:
        raise ShapeError("upper bound and lower bound inconsistent with step sign")
    return max(0, math.ceil((end - start) / step))


def _arange_bounds(start: float, end: float | None, step: float) -> tuple[float, float, float]:
    return (0, start, step) if end is None else (start, end, step)


def _fused(a: float, index: np.ndarray, c: Any) -> np.ndarray:
    """a * i + c rounded once, as the fused multiply-add torch's AVX2 kernels compile it to,
    for doubles a and c and whole numbers 0 <= i < 2**26.

    `a` splits into halves whose products with i are exact (Dekker); error-free sums carry
    the rest, and the last small term is rounded to odd, so that the final rounding to
    nearest is the single correct one (Boldo and Melquiond), ties included."""
    a, i, c = np.float64(a), index.astype(np.float64), np.asarray(c, np.float64)
    scaled = 134217729.0 * a  # 2**27 + 1
    high = scaled - (scaled - a)
    product, product_error = two_sum(high * i, (a - high) * i)  # a * i, exactly
    total, total_error = two_sum(product, c)
    small, small_error = two_sum(product_error, total_error)
    return total + round_to_odd(small, small_error)


def arange_values(start: float, end: float, step: float, dtype: Any) -> np.ndarray:
    """torch.arange's values, computed as its CPU kernel computes them (serial path).

    Integers are exact. For floats the kernel runs in double: a vector of 8 float32 (4 float64)
    lanes starts from start + i*step rounded to the dtype and adds k*step to it per lane; the
    tail that fills no pair of vectors takes start + i*step. So float32 arange(-3.47, 0, 0.113)
    holds -3.0180001, not -3.018."""
    count = arange_count(start, end, step)
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        return np.arange(count, dtype=np.int64) * int(step) + int(start)
    index = np.arange(count)
    lanes = 32 // dtype.itemsize
    vectored = index < count // (2 * lanes) * (2 * lanes)  # vectorized_loop: two vectors a step
    lane = index % lanes
    base = _fused(step, index - lane, start).astype(dtype)
    in_vectors = _fused(step, lane, base).astype(dtype)
    alone = _fused(step, index, start).astype(dtype)
    return np.where(vectored, in_vectors, alone)


def _arange(start=0, end=None, step=1, dtype=None, requires_grad=False) -> np.ndarray:
    first, last, stride = _arange_bounds(start, end, step)
    return _cast(arange_values(first, last, stride, np.float64), dtype)


def _arange_dtype(attrs: dict) -> str:
    given = [attrs.get("start", 0), attrs.get("end"), attrs.get("step", 1)]
    integral = all(isinstance(v, int) and not isinstance(v, bool) for v in given if v is not None)
    return INT64 if integral else FLOAT


def linspace_values(start: float, end: float, steps: int, dtype: Any = np.float64) -> np.ndarray:
    """torch.linspace's values: the first half counted up from start, the second down from end,
    each one fused multiply-add in the dtype (the step itself is computed in the dtype)."""
    dtype = np.dtype(dtype)
    if steps < 0:
        raise ShapeError("number of steps must be non-negative")
    if steps <= 1:
        return np.array([start][:steps], dtype=dtype)
    index = np.arange(steps)
    back = steps - 1 - index
    if dtype == np.float32:  # float32 products are exact in double: one rounding each way
        first, last = np.float32(start), np.float32(end)
        step = np.float64((last - first) / np.float32(steps - 1))
        up, down = np.float64(first) + step * index, np.float64(last) - step * back
    else:
        step = (end - start) / (steps - 1)
        up, down = _fused(step, index, start), _fused(-step, back, end)
    return np.where(index < steps // 2, up, down).astype(dtype)


def _power(base: float, exponent: float) -> float:
    """C's pow where Python's math.pow raises: overflow is ±inf, 0 to a negative power inf (-inf
    for -0.0 to an odd one), a negative base to a fractional power nan."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        odd = exponent.is_integer() and exponent % 2 == 1
        return -math.inf if odd and base < 0 else math.inf
    except ValueError:
        if base == 0:
            odd = exponent.is_integer() and exponent % 2 == 1
            return math.copysign(math.inf, base) if odd else math.inf
        return math.nan


def _libm_power(base: float, exponents: np.ndarray) -> np.ndarray:
    """base ** e by the C library's pow, as torch's std::pow computes it. NumPy's own float64
    power is SIMD code on AVX512 CPUs that can differ from it in the last bit."""
    return np.fromiter(map(_power, [base] * exponents.size, exponents.tolist()), np.float64, exponents.size)


def logspace_values(
    start: float, end: float, steps: int, base: float = 10.0, dtype: Any = np.float32
) -> np.ndarray:
    """torch.logspace's values (RangeFactories.cpp): start and end in the dtype, the step in
    double from their difference in the dtype, base ** (start + step*i) in double for the first
    half and base ** (end - step*(steps-1-i)) for the second, rounded (truncated for integers) once."""
    dtype = np.dtype(dtype)
    if steps < 0:
        raise ShapeError("number of steps must be non-negative")
    if steps <= 1:
        return np.array([float(base) ** float(start)][:steps]).astype(dtype)
    first, last = (np.array(v).astype(dtype) for v in (start, end))
    step = float(last - first) / (steps - 1)
    index = np.arange(steps)
    with np.errstate(all="ignore"):
        exponents = np.where(
            index < steps // 2, float(first) + step * index, float(last) - step * (steps - 1 - index)
        )
        values = _libm_power(float(base), exponents)
    if dtype.kind in "iu":
        values = np.trunc(values)
    return values.astype(dtype)


def _logspace_shape(start=0.0, end=0.0, steps=None, base=10.0, dtype=None, requires_grad=False) -> Shape:
    return _linspace_shape(start, end, steps, dtype, requires_grad, name="logspace")


def _linspace_shape(
    start=0.0, end=0.0, steps=None, dtype=None, requires_grad=False, name: str = "linspace"
) -> Shape:
    _leaf_refused(requires_grad)
    if steps is None:
        raise ShapeError(f"{name}() missing 1 required positional argument: 'steps'")
    if start is None or end is None:  # torch.linspace(0, None, 3): its TypeError, first line
        got = ", ".join("NoneType" if v is None else type(v).__name__ for v in (start, end, steps))
        raise ShapeError(f"{name}() received an invalid combination of arguments - got ({got})")
    if steps < 0:
        raise ShapeError("number of steps must be non-negative")
    return (steps,)


def _eye_shape(n=0, m=None, dtype=None, requires_grad=False) -> Shape:
    _leaf_refused(requires_grad)
    if n < 0:
        raise ShapeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise ShapeError(f"m must be greater or equal to 0, got {m}")
    return (n, n if m is None else m)


def _fill_dtype(value: Any) -> str:
    if isinstance(value, bool):
        return BOOL
    return INT64 if isinstance(value, int) else FLOAT


def _constructor(name: str, syntax: str, forward, params, infer_shape, new_dtype, written, form) -> Op:
    return Op(
        name,
        syntax,
        forward=forward,
        vjp=(),
        sympy=lambda sp, shapes=(), **attrs: _fn(sp, name)(*form(sp, attrs)),
        grad_fn="None",
        torch=f"torch.{name}",
        domain="number literals (sizes may be x.shape[0], len(x))",
        saves_tensors=False,
        elementwise=False,
        method=False,
        differentiable=False,
        params=(*params, DTYPE, REQUIRES_GRAD),
        infer_shape=infer_shape,
        new_dtype=lambda attrs: attrs.get("dtype") or new_dtype(attrs),
        written=written,
    )


def _numbers(sp, *values: Any) -> list:
    return [sp.Integer(v) if isinstance(v, int) else sp.Float(v) for v in values if v is not None]


def _sym_data(sp, data: Any) -> Any:
    """Nested lists as nested sympy Tuples: `tensor(((1, 2), (3, 4)))` keeps the shape."""
    if isinstance(data, tuple):
        return sp.Tuple(*(_sym_data(sp, item) for item in data))
    return _numbers(sp, data)[0]


def _tensor_shape(data=(), dtype=None, requires_grad=False) -> Shape:
    _leaf_refused(requires_grad)
    return data_shape(data)


OPS: tuple[Op, ...] = (
    _constructor(
        "tensor",
        "torch.tensor([[1., 2.], [3., 4.]]), np.array([...])",
        _tensor,
        (Param("data", (), "data"),),
        _tensor_shape,
        lambda attrs: data_dtype(attrs.get("data", ())),
        lambda texts, attrs: f"torch.tensor({_data_text(attrs['data'])}{_dtype_text(attrs)})",
        lambda sp, attrs: [_sym_data(sp, attrs["data"])],
    ),
    *(
        _constructor(
            name,
            f"torch.{name}(2, 3), torch.{name}((2, 3))",
            lambda size=(), dtype=None, requires_grad=False, make=make: make(size),
            (Param("size", (), "ints"),),
            _size_shape,
            lambda attrs: FLOAT,
            lambda texts, attrs, name=name: f"torch.{name}({', '.join(map(str, attrs['size']))}{_dtype_text(attrs)})",
            lambda sp, attrs: _numbers(sp, *attrs["size"]),
        )
        for name, make in (("zeros", np.zeros), ("ones", np.ones))
    ),
    _constructor(
        "full",
        "torch.full((2, 3), 0.5)",
        lambda size=(), fill_value=0.0, dtype=None, requires_grad=False: _cast(
            np.full(size, float(fill_value)), dtype
        ),
        (Param("size", (), "ints"), Param("fill_value", None, "scalar")),
        lambda size=(), fill_value=None, dtype=None, requires_grad=False: _full_shape(
            size, fill_value, requires_grad
        ),
        lambda attrs: _fill_dtype(attrs.get("fill_value")),
        lambda texts, attrs: (
            f"torch.full({tuple(attrs['size'])!r}, {attrs['fill_value']!r}{_dtype_text(attrs)})"
        ),
        lambda sp, attrs: [sp.Tuple(*_numbers(sp, *attrs["size"])), *_numbers(sp, attrs["fill_value"])],
    ),
    _constructor(
        "eye",
        "torch.eye(n), torch.eye(n, m)",
        lambda n=0, m=None, dtype=None, requires_grad=False: np.eye(n, n if m is None else m),
        (Param("n", 0, "int"), Param("m", None, "int")),
        _eye_shape,
        lambda attrs: FLOAT,
        lambda texts, attrs: (
            "torch.eye("
            + ", ".join(str(v) for v in (attrs["n"], attrs.get("m")) if v is not None)
            + f"{_dtype_text(attrs)})"
        ),
        lambda sp, attrs: _numbers(sp, attrs["n"], attrs.get("m")),
    ),
    _constructor(
        "arange",
        "torch.arange(end), torch.arange(start, end, step)",
        _arange,
        (Param("start", 0, "scalar"), Param("end", None, "scalar"), Param("step", 1, "scalar")),
        lambda start=0, end=None, step=1, dtype=None, requires_grad=False: _arange_shape(
            start, end, step, requires_grad
        ),
        _arange_dtype,
        lambda texts, attrs: (
            "torch.arange("
            + ", ".join(
                repr(v)
                for v in (
                    (attrs["start"],)
                    if attrs.get("end") is None
                    else (attrs["start"], attrs["end"], attrs["step"])
                )
            )
            + f"{_dtype_text(attrs)})"
        ),
        lambda sp, attrs: _numbers(sp, *_arange_bounds(attrs["start"], attrs.get("end"), attrs["step"])),
    ),
    _constructor(
        "linspace",
        "torch.linspace(start, end, steps)",
        lambda start=0.0, end=0.0, steps=None, dtype=None, requires_grad=False: _cast(
            linspace_values(float(start), float(end), steps), dtype
        ),
        (Param("start", None, "scalar"), Param("end", None, "scalar"), Param("steps", None, "int")),
        _linspace_shape,
        lambda attrs: FLOAT,
        lambda texts, attrs: (
            f"torch.linspace({attrs['start']!r}, {attrs['end']!r}, {attrs['steps']}{_dtype_text(attrs)})"
        ),
        lambda sp, attrs: _numbers(sp, attrs["start"], attrs["end"], attrs["steps"]),
    ),
    _constructor(
        "logspace",
        "torch.logspace(start, end, steps, base=10.0)",
        lambda start=0.0, end=0.0, steps=None, base=10.0, dtype=None, requires_grad=False: _cast(
            logspace_values(float(start), float(end), steps, float(base), np.float64), dtype
        ),
        (
            Param("start", None, "scalar"),
            Param("end", None, "scalar"),
            Param("steps", None, "int"),
            Param("base", 10.0, "scalar"),
        ),
        _logspace_shape,
        lambda attrs: FLOAT,
        lambda texts, attrs: (
            f"torch.logspace({attrs['start']!r}, {attrs['end']!r}, {attrs['steps']}"
            + (f", base={attrs['base']!r}" if attrs.get("base", 10.0) != 10.0 else "")
            + f"{_dtype_text(attrs)})"
        ),
        lambda sp, attrs: _numbers(sp, attrs["start"], attrs["end"], attrs["steps"], attrs.get("base", 10.0)),
    ),
)


def _full_shape(size: Shape, fill_value: Any, requires_grad: bool) -> Shape:
    if fill_value is None:
        raise ShapeError("full() missing 1 required positional argument: 'fill_value'")
    return _size_shape(size, requires_grad=requires_grad)


def _arange_shape(start: Any, end: Any, step: Any, requires_grad: bool) -> Shape:
    _leaf_refused(requires_grad)
    return (arange_count(*_arange_bounds(start, end, step)),)


# NumPy and JAX spell torch.tensor as np.array / jnp.array (the same literal rules).
NUMPY_ALIASES = {"array": Spelling("tensor"), "asarray": Spelling("tensor")}
