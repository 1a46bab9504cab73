"""VALUE strings -> arrays: constructors, JSON, sizes refused before allocation, overflow edges."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from gradcli import limits, values
from gradcli.errors import LimitError, ValueInputError
from gradcli.values import parse_value, to_array


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2.0", np.array(2.0)),
        ("[1, 2.5]", np.array([1.0, 2.5])),
        ("[[1.0,2],[3,4]]", np.array([[1.0, 2.0], [3.0, 4.0]])),
        ("zeros(2,3)", np.zeros((2, 3))),
        ("ones(2)", np.ones(2)),
        ("full(2,2,0.5)", np.full((2, 2), 0.5)),
        ("eye(2,3)", np.eye(2, 3)),
        ("arange(1,2,0.25)", np.array([1.0, 1.25, 1.5, 1.75])),
        ("linspace(0,1,3)", np.array([0.0, 0.5, 1.0])),
        ("zeros()", np.zeros(())),
    ],
)
def test_values_and_constructors(text: str, expected: np.ndarray) -> None:
    array = parse_value(text)
    assert array.dtype == np.float64 and array.shape == expected.shape
    assert np.array_equal(array, expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2", np.array(2)), ("[1, 2]", np.array([1, 2])), ("[true, false]", np.array([True, False]))],
)
def test_integer_and_bool_literals_keep_torch_tensors_dtype(text: str, expected: np.ndarray) -> None:
    """torch.tensor([1, 2]) is int64 and torch.tensor([True]) bool: a --const keeps that."""
    array = parse_value(text)
    assert array.dtype == expected.dtype and np.array_equal(array, expected)
    with (
        pytest.raises(ValueInputError, match="which is not a number")
        if expected.dtype == bool
        else _nothing()
    ):
        to_array(array, np.dtype(np.float64), "--at x")  # an --at value is always floating


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_random_constructors_follow_the_seed() -> None:
    first = parse_value("randn(2,2)", rng=np.random.default_rng(7))
    again = parse_value("randn(2,2)", rng=np.random.default_rng(7))
    assert np.array_equal(first, again) and first.shape == (2, 2)


def test_float32_is_honoured() -> None:
    assert parse_value("ones(2)", np.dtype(np.float32)).dtype == np.float32


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("nan", np.nan),
        ("NaN", np.nan),
        ("inf", np.inf),
        ("-inf", -np.inf),
        ("Infinity", np.inf),
        ("-Infinity", -np.inf),
        ("1e999", np.inf),
    ],
)
def test_non_finite_words_are_read(text: str, expected: float) -> None:
    assert np.array_equal(parse_value(text), np.array(expected), equal_nan=True)


def test_gradclis_own_json_strings_for_non_finite_numbers_read_back() -> None:
    """The JSON output writes nan/inf as strings; feeding a value back must work."""
    array = parse_value('["nan", "inf", "-inf", 1]')
    assert np.array_equal(array, np.array([np.nan, np.inf, -np.inf, 1.0]), equal_nan=True)


def test_sizes_are_refused_before_anything_is_allocated(monkeypatch) -> None:
    def no_allocation(*args, **kwargs):
        raise AssertionError("allocated before checking the size")

    rng = np.random.default_rng(0)
    for name in ("zeros", "ones", "full", "eye", "arange", "linspace"):
        monkeypatch.setattr(values.np, name, no_allocation)
    for text in [
        "zeros(100000,100000)",
        "ones(100000,100000)",
        "full(100000,100000,1)",
        "eye(100000)",
        "arange(1e10)",
        "linspace(0,1,1e10)",
    ]:
        with pytest.raises(LimitError, match=r"10,000,000,000 elements.*MAX_ELEMENTS=100,000,000"):
            parse_value(text, rng=rng)


def test_astronomical_counts_are_printed_readably() -> None:
    with pytest.raises(LimitError, match=r"'zeros\(1e300\)' would have 1\.0e\+300 elements"):
        parse_value("zeros(1e300)")
    assert limits.count_text(10**10) == "10,000,000,000"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # Regressions: each of these was an OverflowError (an internal error) from int(inf).
        ("zeros(1e999)", "whole numbers"),
        ("eye(1e999)", "whole numbers"),
        ("linspace(0,1,1e999)", "whole numbers"),
        ("full(1e999,1)", "whole numbers"),
        ("arange(1e999)", "finite numbers"),
        ("arange(-1e999)", "finite numbers"),
        ("arange(0,1,1e-320)", "MAX_ELEMENTS"),
    ],
)
def test_infinite_sizes_are_input_errors(text: str, message: str) -> None:
    with pytest.raises((ValueInputError, LimitError), match=message):
        parse_value(text)


def test_arange_near_the_float_limit() -> None:
    """Regression: NumPy's own size computation overflowed ("Maximum allowed size exceeded")."""
    array = parse_value("arange(1e308,-1e308,-1e307)")
    assert array.shape == (20,) and array[0] == 1e308 and array[-1] == pytest.approx(-9e307)
    assert np.all(np.isfinite(array))


def test_constructor_text_never_makes_python_warn() -> None:
    """'\\d' makes Python's parser warn (DeprecationWarning, SyntaxWarning from 3.12)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueInputError, match="must be numbers"):
            parse_value("zeros('\\d')")


def test_linspace_overflow_gives_inf_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        array = parse_value("linspace(-1e308,1e308,3)")
    assert array.shape == (3,)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[1,2],[3]]", "ragged"),
        ("[1,[2]]", "ragged"),
        ("[true, null]", "contains null"),
        ("null", "contains null"),
        ('"2"', 'contains "2"'),
        ('["NaN"]', 'contains "NaN"'),  # only gradcli's own spellings are strings it reads
        ('{"a": 1}', "which is not a number"),
        ("[" * 40 + "1" + "]" * 40, "nested more than 32 deep"),
        ("[" * 100_000, "cannot read value"),
        ("1" + "0" * 5000, "cannot read value"),  # past Python's 4,300-digit int limit
        ("[1" + "0" * 400 + "]", "too large for a float"),
        ("", "empty value"),
        ("abc", "cannot read value 'abc'"),
        ("eval('1')", "unknown constructor 'eval'"),
        ("zeros(x)", "must be numbers"),
        ("zeros(2)(3)", "cannot read value"),
        ("zeros(shape=2)", "cannot read value"),
        ("arange(0,1,0)", "step must not be zero"),
        ("zeros(-1)", "negative size"),
    ],
)
def test_bad_values_are_clear_input_errors(text: str, message: str) -> None:
    with pytest.raises(ValueInputError, match=message.replace("(", r"\(").replace("[", r"\[")):
        parse_value(text)


def test_value_text_cap(monkeypatch) -> None:
    monkeypatch.setattr(limits, "MAX_VALUE_CHARS", 10)
    with pytest.raises(LimitError, match="MAX_VALUE_CHARS=10"):
        parse_value("[1,2,3,4,5,6]")


def test_api_objects_are_checked_like_text() -> None:
    assert to_array([1, 2], np.dtype(np.float64)).shape == (2,)
    with pytest.raises(ValueInputError, match="--at x contains true"):
        to_array([True], np.dtype(np.float64), "--at x")
    with pytest.raises(ValueInputError, match="not complex128"):
        to_array(np.array([1j]), np.dtype(np.float64))
    with pytest.raises(ValueInputError, match="too large for a float"):
        to_array([10**400], np.dtype(np.float64))
