"""gradcli.script.tensor_repr against repr() of the torch tensor with the same values, byte for byte."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcli.script.tensor_repr import (
    canonical_dtype,
    dtype_repr,
    grad_fn_repr,
    item_repr,
    reset_print_options,
    set_print_options,
    size_repr,
    tensor_format,
    tensor_repr,
    tolist_repr,
)

torch = pytest.importorskip(
    "torch", reason="torch (the test oracle) is not installed: pip install -e '.[test]'"
)

SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
FLOATS = ("float32", "float64", "float16")
NONFINITE = [math.nan, math.inf, -math.inf]

# ------------------------------------------------------------------ the examples of the brief, as torch prints them


@pytest.mark.parametrize(
    ("value", "kwargs", "expected"),
    [
        (8.0, {}, "tensor(8.)"),
        (
            [[2.0, 4.0], [6.0, -8.1234]],
            {"requires_grad": True},
            "tensor([[ 2.0000,  4.0000],\n        [ 6.0000, -8.1234]], requires_grad=True)",
        ),
        (96.0, {"grad_fn": "MulBackward0", "is_leaf": False}, "tensor(96., grad_fn=<MulBackward0>)"),
        ([1.0, 2.0], {"dtype": "float64"}, "tensor([1., 2.], dtype=torch.float64)"),
        (
            [1.0, 2.0],
            {"dtype": "float64", "requires_grad": True},
            "tensor([1., 2.], dtype=torch.float64, requires_grad=True)",
        ),
        ([1, 2, 3], {"dtype": "int64"}, "tensor([1, 2, 3])"),
        ([True, False], {"dtype": "bool"}, "tensor([ True, False])"),  # torch pads True to the width of False
        ([], {}, "tensor([])"),
        ([], {"dtype": "int64"}, "tensor([], dtype=torch.int64)"),
        (np.zeros((0, 3)), {}, "tensor([], size=(0, 3))"),
        ([1e-5, 1e5], {}, "tensor([1.0000e-05, 1.0000e+05])"),
        ([math.nan, math.inf, -math.inf], {}, "tensor([nan, inf, -inf])"),
        ([0.1, -0.0], {}, "tensor([0.1000, -0.0000])"),
        (
            np.arange(8.0).reshape(2, 2, 2),
            {},
            "tensor([[[0., 1.],\n         [2., 3.]],\n\n        [[4., 5.],\n         [6., 7.]]])",
        ),
    ],
)
def test_known_reprs(value, kwargs, expected):
    assert tensor_repr(np.asarray(value), **kwargs) == expected


def test_summarised_and_wrapped():
    assert "..." not in tensor_repr(np.arange(1000), dtype="int64")
    assert "..." in tensor_repr(np.arange(1001), dtype="int64")
    assert tensor_repr(np.arange(2000), dtype="int64") == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    long = tensor_repr(np.arange(30.0) / 3)  # nine of "0.0000, " fit beside "tensor(["
    assert long.count("\n") == 3 and all(len(line) <= 80 for line in long.splitlines())


# ------------------------------------------------------------------ generated tensors


def _magnitude(sign: int, exponent: float) -> float:
    return sign * 10.0**exponent


# Each family pulls the formatter towards one mode: int mode, fixed point, scientific, non-finite.
FLOAT_FAMILIES = {
    "whole": st.integers(-1000, 1000).map(float),
    "fraction": st.floats(-10, 10, allow_nan=False),
    "magnitude": st.builds(_magnitude, st.sampled_from([1, -1]), st.floats(-8, 8)),
    "special": st.sampled_from(
        [0.0, -0.0, 0.5, 2.5, 1e-4, 9.99995e-5, 1e8, 1.00000005e8, 0.00015, 999.99995, 1e-8]
    ),
    "nonfinite": st.sampled_from(NONFINITE),
    "any32": st.floats(width=32),
}
INT_FAMILIES = {
    "small": st.integers(-10, 10),
    "wide": st.integers(-(2**63), 2**63 - 1),
    "hundreds": st.integers(-999, 999),
}
# Shapes past the 1000-element threshold, some with a dimension too short to summarise.
BIG_SHAPES = [
    (1001,),
    (2000,),
    (40, 26),
    (1, 1500),
    (1500, 1),
    (11, 11, 9),
    (6, 6, 30),
    (7, 12, 12),
    (3, 4, 5, 20),
]


@st.composite
def tensors(draw: st.DrawFn) -> tuple[np.ndarray, str]:
    """(values, dtype): a NumPy array in the dtype's NumPy type, and its torch dtype name."""
    dtype = draw(st.sampled_from(["float32", "float32", "float64", "int64", "bool", "float16"]))
    if draw(st.integers(0, 9)) == 0:
        shape = draw(st.sampled_from(BIG_SHAPES))
    else:
        ndim = draw(st.integers(0, 4))
        # an empty dimension one time in ten, so most tensors have elements to print
        sizes = [0, 1, 1, 2, 2, 2, 3, 3, 4, 5] if ndim < 4 else [0, 1, 1, 2, 2, 2, 2, 2, 2, 2]
        shape = tuple(draw(st.lists(st.sampled_from(sizes), min_size=ndim, max_size=ndim)))
        if draw(st.integers(0, 4)) == 0 and ndim == 1:
            shape = (draw(st.integers(6, 60)),)  # long enough to wrap at 80 columns
    size = math.prod(shape)

    if dtype == "bool":
        elements = st.booleans()
    else:
        families = FLOAT_FAMILIES if dtype in FLOATS else INT_FAMILIES
        names = draw(st.lists(st.sampled_from(sorted(families)), min_size=1, max_size=3, unique=True))
        elements = st.one_of([families[n] for n in names])
    if size <= 64:
        flat = draw(st.lists(elements, min_size=size, max_size=size))
    else:
        # too many elements to draw one by one: a few drawn values, repeated and shuffled by a seed
        pool = draw(st.lists(elements, min_size=1, max_size=12))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        flat = [pool[i] for i in rng.integers(0, len(pool), size)]
    numpy_dtype = {"float16": np.float16, "float32": np.float32, "float64": np.float64}.get(dtype, dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        array = np.array(flat, dtype=object if dtype == "int64" else None).astype(numpy_dtype).reshape(shape)
    return array, dtype


def _torch_tensor(array: np.ndarray, dtype: str):
    # a copy, not np.ascontiguousarray: that one turns a 0-d array into a 1-d one
    return torch.from_numpy(array.copy()).to(getattr(torch, dtype))


@settings(max_examples=600, **SETTINGS)
@given(tensors())
def test_tensor_repr_matches_torch(case):
    array, dtype = case
    t = _torch_tensor(array, dtype)
    assert tensor_repr(array, dtype=dtype) == repr(t) == str(t)


@settings(max_examples=150, **SETTINGS)
@given(tensors())
def test_float64_input_is_rounded_to_the_dtype(case):
    # gradcli computes in float64 and hands float32 tensors over as float64 arrays at times
    array, dtype = case
    if dtype not in FLOATS:
        return
    wide = array.astype(np.float64)
    assert tensor_repr(wide, dtype=dtype) == repr(torch.tensor(wide, dtype=getattr(torch, dtype)))


# Ops that change no value (x * 1 keeps -0.0 and nan), each with the grad_fn torch records.
EXACT_OPS = {
    "MulBackward0": lambda x: x * 1,
    "CloneBackward0": lambda x: x.clone(),
    "ViewBackward0": lambda x: x.view(x.shape),
}


@settings(max_examples=300, **SETTINGS)
@given(tensors(), st.sampled_from(["leaf", "requires_grad", *EXACT_OPS]))
def test_autograd_suffixes_match_torch(case, how):
    array, dtype = case
    if dtype in ("int64", "bool"):
        dtype = "float32"
        array = array.astype(np.float32)
    t = _torch_tensor(array, dtype)
    if how != "leaf":
        t.requires_grad_(True)
    if how in EXACT_OPS:
        t = EXACT_OPS[how](t)
    grad_fn = None if t.grad_fn is None else type(t.grad_fn).__name__
    ours = tensor_repr(
        t.detach().numpy(), dtype=dtype, requires_grad=t.requires_grad, grad_fn=grad_fn, is_leaf=t.is_leaf
    )
    assert ours == repr(t)


# ------------------------------------------------------------------ the smaller reprs


@settings(max_examples=200, **SETTINGS)
@given(
    st.sampled_from(["float32", "float64", "float16", "int64", "bool"]),
    st.one_of(st.floats(), st.integers(-(2**63), 2**63 - 1), st.booleans()),
)
def test_item_repr_matches_torch(dtype, value):
    if dtype in ("int64", "bool") and isinstance(value, float) and not abs(value) < 2.0**62:
        return  # nan, inf and floats past int64 have no integer value (torch refuses or wraps)
    t = torch.tensor(value, dtype=getattr(torch, dtype))
    numpy_value = np.array(value, dtype=object if dtype == "int64" else None)
    assert item_repr(numpy_value, dtype) == repr(t.item())


def test_item_repr_float32_is_the_rounded_double():
    assert item_repr(0.1, "float32") == "0.10000000149011612"
    assert item_repr(0.1, "float64") == "0.1"
    assert item_repr(3.0, "float32") == "3.0"
    assert item_repr(7, "int64") == "7"


@pytest.mark.parametrize("shape", [(), (0,), (2, 2), (1, 0, 3), (5,)])
def test_size_repr_matches_torch(shape):
    assert size_repr(shape) == str(torch.zeros(shape).shape) == repr(torch.zeros(shape).shape)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"])
def test_dtype_repr_matches_torch(dtype):
    assert dtype_repr(dtype) == str(getattr(torch, dtype))


def test_dtype_aliases():
    assert canonical_dtype("torch.double") == "float64"
    assert canonical_dtype("long") == "int64"
    with pytest.raises(ValueError, match="unsupported dtype"):
        canonical_dtype("complex64")


def test_grad_fn_repr_matches_torch_but_the_address():
    x = torch.tensor(2.0, requires_grad=True)
    node = (x * x).grad_fn
    mask = re.compile(r"0x[0-9a-f]+")
    ours = grad_fn_repr("MulBackward0")
    assert mask.sub("0x?", ours) == mask.sub("0x?", repr(node)) == mask.sub("0x?", str(node))
    assert ours == grad_fn_repr("MulBackward0"), "the fake address must be stable"
    assert grad_fn_repr("MulBackward0", address=0x7F1234567890) == "<MulBackward0 object at 0x7f1234567890>"


@pytest.mark.parametrize("dtype", ["int32", "int8", "int16", "uint8"])
def test_other_integer_dtypes_show_their_dtype(dtype):
    values = np.array([[1, -2, 100], [0, 5, 7]]).astype(dtype)
    assert tensor_repr(values, dtype=dtype) == repr(torch.from_numpy(values))
    empty = np.zeros((2, 0), dtype=dtype)
    assert tensor_repr(empty, dtype=dtype) == repr(torch.from_numpy(empty))


@settings(max_examples=150, **SETTINGS)
@given(tensors())
def test_tolist_repr_matches_torch(case):
    array, dtype = case
    if array.size > 64:
        return  # long lists say nothing new
    assert tolist_repr(array, dtype) == repr(_torch_tensor(array, dtype).tolist())


@settings(max_examples=200, **SETTINGS)
@given(tensors(), st.sampled_from(["", ".4f", ".2e", "10.3f", "g", ">12", "d", "+.1%"]), st.booleans())
def test_tensor_format_matches_torch(case, spec, requires_grad):
    array, dtype = case
    t = _torch_tensor(array, dtype)
    if requires_grad and dtype in FLOATS:
        t.requires_grad_(True)
    try:
        expected: str | type[Exception] = format(t, spec)
    except (TypeError, ValueError) as error:  # a spec the item's type refuses, or a non-0-d tensor
        expected = type(error)
        message = str(error)
    kwargs = {"dtype": dtype, "requires_grad": t.requires_grad}
    if isinstance(expected, str):
        assert tensor_format(array, spec, **kwargs) == expected
    else:
        with pytest.raises(expected) as raised:
            tensor_format(array, spec, **kwargs)
        assert str(raised.value) == message


def test_tensor_format_of_a_scalar_is_its_item():
    assert tensor_format(np.float32(8.0), "") == "8.0"
    assert tensor_format(np.float64(0.1), ".20f") == "0.10000000149011611938"


@settings(max_examples=300, **SETTINGS)
@given(
    tensors(),
    st.fixed_dictionaries(
        {},
        optional={
            "precision": st.integers(0, 8),
            "threshold": st.integers(1, 40),
            "edgeitems": st.integers(1, 4),
            "linewidth": st.integers(10, 120),
            "sci_mode": st.sampled_from([True, False]),
            "profile": st.sampled_from(["default", "short", "full"]),
        },
    ),
)
def test_print_options_match_torchs(case, options):
    """torch.set_printoptions as a run script calls it: precision, summarising, wrapping and
    forced notation, against torch's repr under the same options."""
    array, dtype = case
    try:
        torch.set_printoptions(**options)
        set_print_options(**options)
        assert tensor_repr(array, dtype=dtype) == repr(_torch_tensor(array, dtype))
    finally:
        torch.set_printoptions(profile="default", sci_mode=None)
        reset_print_options()
