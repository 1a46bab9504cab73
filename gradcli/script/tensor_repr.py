"""PyTorch's tensor repr, byte for byte, from NumPy arrays: what `print(t)` shows in a `run` script.

A transcription of `torch/_tensor_str.py` (PyTorch 2.x) for the cases a script can produce: dense CPU
tensors of float16/32/64, signed and unsigned integers and bool, with the default print options
(precision 4, threshold 1000, edgeitems 3, linewidth 80). The structure and names follow torch's
(`_Formatter`, `_vector_str`, `_tensor_str_with_formatter`, `_get_summarized_data`, `_add_suffixes`),
so a reader can hold the two files side by side. Every float is printed as torch prints it: the value
rounded to its dtype, then widened to a Python float (a double) and formatted with `format()`.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable
from typing import Any

import numpy as np

# torch's PRINT_OPTS defaults; a `run` script changes them with torch.set_printoptions
# (set_print_options below), and each run starts from these (reset_print_options).
PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80
SCI_MODE: bool | None = None  # None: torch decides from the values
_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": 2**63 - 1, "edgeitems": 3, "linewidth": 80},
}


def set_print_options(
    precision: int | None = None,
    threshold: int | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """torch.set_printoptions: a profile first, then the options given; sci_mode always."""
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"profile must be one of {', '.join(_PROFILES)}")
        chosen = _PROFILES[profile]
        PRECISION, THRESHOLD = chosen["precision"], chosen["threshold"]
        EDGEITEMS, LINEWIDTH = chosen["edgeitems"], chosen["linewidth"]
    PRECISION = PRECISION if precision is None else precision
    THRESHOLD = THRESHOLD if threshold is None else threshold
    EDGEITEMS = EDGEITEMS if edgeitems is None else edgeitems
    LINEWIDTH = LINEWIDTH if linewidth is None else linewidth
    SCI_MODE = sci_mode


def reset_print_options() -> None:
    set_print_options(profile="default")

# torch dtype name -> NumPy dtype. bfloat16 and complex are absent: gradcli has neither.
_DTYPES: dict[str, np.dtype] = {
    "float16": np.dtype(np.float16),
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    "int8": np.dtype(np.int8),
    "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "uint8": np.dtype(np.uint8),
    "bool": np.dtype(np.bool_),
    "bfloat16": np.dtype(np.float32),  # NumPy has none: float32 arrays of bfloat16 values
}
# The spellings torch also accepts (torch.float is float32, torch.long is int64, ...).
_ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "long": "int64",
    "int": "int32",
    "short": "int16",
}
# Dtypes torch prints without a `dtype=` suffix (the default float dtype, int64 and bool); an empty
# tensor shows every dtype but float32, since no element tells its kind.
_IMPLIED_DTYPES = ("float32", "int64", "bool")
_DEFAULT_DTYPE = "float32"


def canonical_dtype(dtype: str) -> str:
    """`"torch.double"`, `"double"` or `"float64"` -> `"float64"`; ValueError for an unknown dtype."""
    name = dtype.removeprefix("torch.")
    name = _ALIASES.get(name, name)
    if name not in _DTYPES:
        raise ValueError(f"unsupported dtype {dtype!r}: expected one of {', '.join(_DTYPES)}")
    return name


def dtype_repr(dtype: str) -> str:
    """What `print(t.dtype)` prints: `torch.float32`."""
    return "torch." + canonical_dtype(dtype)


def size_repr(shape: Iterable[int]) -> str:
    """What `print(t.shape)` prints: `torch.Size([2, 2])`, `torch.Size([])` for a 0-d tensor."""
    return "torch.Size([" + ", ".join(str(int(n)) for n in shape) + "])"


def grad_fn_repr(name: str, *, address: int | None = None) -> str:
    """What `print(t.grad_fn)` prints: `<MulBackward0 object at 0x7f...>`.

    torch shows the node's memory address; gradcli has none, so by default the address is a
    stable fake one derived from the name (16-byte aligned like CPython's), so the same input
    prints the same bytes. Comparisons with torch must mask addresses.
    """
    if address is None:
        address = 0x7F0000000000 + ((zlib.crc32(name.encode()) & 0xFFFFFFF) << 4)
    return f"<{name} object at 0x{address:012x}>"


def item_repr(value: Any, dtype: str = "float32") -> str:
    """What `print(t.item())` prints: the value rounded to `dtype`, as a Python number's repr.

    A float32 0.1 prints `0.10000000149011612`, the double nearest to the float32 value.
    """
    return repr(_python_scalar(value, canonical_dtype(dtype)))


def _python_scalar(value: Any, name: str) -> float | int | bool:
    """The Python number torch's `.item()` returns: the value rounded to the dtype, widened."""
    with np.errstate(over="ignore", invalid="ignore"):
        scalar = np.asarray(value).astype(_DTYPES[name]).reshape(())
    if name == "bool":
        return bool(scalar)
    if name.startswith("float"):
        return float(scalar)
    return int(scalar)


def tolist_repr(value: Any, dtype: str = "float32") -> str:
    """What `print(t.tolist())` prints: nested lists of the Python numbers `.item()` would give."""
    name = canonical_dtype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        array = np.asarray(value).astype(_DTYPES[name], copy=False)
    return repr(array.tolist())


def tensor_format(
    value: Any,
    format_spec: str,
    *,
    dtype: str = "float32",
    requires_grad: bool = False,
    grad_fn: str | None = None,
) -> str:
    """`format(t, spec)`, as an f-string `{t:spec}` calls it (torch's `Tensor.__format__`).

    A 0-d tensor formats its `.item()`, so `f"{t}"` prints `8.0` where `print(t)` prints
    `tensor(8.)`; any other tensor takes only the empty spec (its repr) and raises TypeError
    with torch's message otherwise.
    """
    name = canonical_dtype(dtype)
    array = np.asarray(value)
    if array.ndim == 0:
        return format(_python_scalar(array, name), format_spec)
    if format_spec:
        raise TypeError("unsupported format string passed to Tensor.__format__")
    return tensor_repr(array, dtype=name, requires_grad=requires_grad, grad_fn=grad_fn)


def tensor_repr(
    value: Any,
    *,
    dtype: str = "float32",
    requires_grad: bool = False,
    grad_fn: str | None = None,
    is_leaf: bool = True,
    tangent: str | None = None,
) -> str:
    """`repr(t)` (and `str(t)`) of the torch tensor holding `value` with these dtype and flags.

    `value` is cast to `dtype` first, as `torch.tensor(value, dtype=...)` would. `grad_fn` is the
    node's class name (`"MulBackward0"`); torch shows it instead of `requires_grad=True`, so a
    non-leaf prints its grad_fn and a leaf that requires grad prints `requires_grad=True`.
    `is_leaf` does not change the text (torch derives it from grad_fn); it is accepted so callers
    can pass a tensor's flags as they hold them.
    """
    del is_leaf  # see the docstring: the repr reads grad_fn and requires_grad only
    name = canonical_dtype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        # 1e300 in float32 is inf, silently, as in torch.tensor([1e300])
        array = np.asarray(value).astype(_DTYPES[name], copy=False)

    prefix = "tensor("
    indent = len(prefix)
    suffixes: list[str] = []
    if array.size == 0:
        # torch explicitly prints the shape unless it is (0,), to match NumPy.
        if array.ndim != 1:
            suffixes.append("size=" + str(tuple(int(n) for n in array.shape)))
        if name != _DEFAULT_DTYPE:
            suffixes.append("dtype=torch." + name)
        tensor_str = "[]"
    else:
        if name not in _IMPLIED_DTYPES:
            suffixes.append("dtype=torch." + name)
        # torch formats the half dtypes' elements as float32 numbers (_tensor_str: self.float())
        tensor_str = _tensor_str(array.astype(np.float32) if array.dtype == np.float16 else array, indent)

    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:  # a dual tensor of forward AD
        suffixes.append(f"tangent={tangent}")
    return _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=False)


class _Formatter:
    """One width and one notation for every element of a tensor (torch's `_Formatter`)."""

    def __init__(self, array: np.ndarray) -> None:
        self.floating_dtype = array.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = array.reshape(-1)

        if not self.floating_dtype:
            for item in flat.tolist():
                self.max_width = max(self.max_width, len(f"{item}"))
            return

        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            return  # only zeros, nan and inf: int mode, width 1
        # torch decides in the tensor's own dtype whether values are whole, then in double
        # whether they span too many magnitudes for fixed notation.
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        magnitudes = np.abs(nonzero_finite.astype(np.float64))
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())
        self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        if SCI_MODE is not None:
            self.sci_mode = SCI_MODE

        values = nonzero_finite.astype(np.float64).tolist()
        if self.sci_mode:
            widths = (len(f"{v:.{PRECISION}e}") for v in values)
        elif self.int_mode:
            # a whole float prints with a trailing "." to show it is a float: one more column
            widths = (len(f"{v:.0f}") + 1 for v in values)
        else:
            widths = (len(f"{v:.{PRECISION}f}") for v in values)
        self.max_width = max(self.max_width, *widths)

    def width(self) -> int:
        return self.max_width

    def format(self, value: float | int | bool) -> str:
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRECISION}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _vector_str(array: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    # the length of an element includes the comma and space after it
    element_length = formatter.width() + 2
    elements_per_line = max(1, math.floor((LINEWIDTH - indent) / element_length))

    if summarize and array.shape[0] > 2 * EDGEITEMS:
        data = (
            [formatter.format(v) for v in array[:EDGEITEMS].tolist()]
            + [" ..."]
            + [formatter.format(v) for v in array[-EDGEITEMS:].tolist()]
        )
    else:
        data = [formatter.format(v) for v in array.tolist()]

    lines = [", ".join(data[i : i + elements_per_line]) for i in range(0, len(data), elements_per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(array: np.ndarray, indent: int, summarize: bool, formatter: _Formatter) -> str:
    dim = array.ndim
    if dim == 0:
        return formatter.format(array.item())
    if dim == 1:
        return _vector_str(array, indent, summarize, formatter)

    if summarize and array.shape[0] > 2 * EDGEITEMS:
        rows = [*range(EDGEITEMS), None, *range(array.shape[0] - EDGEITEMS, array.shape[0])]
    else:
        rows = list(range(array.shape[0]))
    slices = [
        "..." if i is None else _tensor_str_with_formatter(array[i], indent + 1, summarize, formatter)
        for i in rows
    ]
    # one blank line between 3-d slices, two between 4-d ones, ...
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _get_summarized_data(array: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows (edge items of every dimension), for the formatter."""
    if array.ndim == 0:
        return array
    if array.ndim == 1:
        if array.shape[0] > 2 * EDGEITEMS:
            return np.concatenate((array[:EDGEITEMS], array[-EDGEITEMS:]))
        return array
    if array.shape[0] > 2 * EDGEITEMS:
        rows = [*range(EDGEITEMS), *range(array.shape[0] - EDGEITEMS, array.shape[0])]
    else:
        rows = list(range(array.shape[0]))
    return np.stack([_get_summarized_data(array[i]) for i in rows])


def _tensor_str(array: np.ndarray, indent: int) -> str:
    summarize = array.size > THRESHOLD
    formatter = _Formatter(_get_summarized_data(array) if summarize else array)
    return _tensor_str_with_formatter(array, indent, summarize, formatter)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int, force_newline: bool) -> str:
    parts = [tensor_str]
    # torch's arithmetic, kept as is: without a newline rfind is -1 and this counts two extra columns
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)
