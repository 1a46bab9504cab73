"""Property-based fuzzing of the parser and the CLI with random text and mutated programs (issue 3).

Properties:
- parse_program lets no exception escape except GradcliError, whatever the text;
- the CLI never shows a traceback or an internal error: it succeeds with strict JSON
  and a silent stderr, or fails with exactly one `error:` line and exit 1 or 2;
- valid programs (before mutation) agree with PyTorch, value and leaf grads.

The default run is short and derandomised for CI. A long run:

    GRADCLI_FUZZ_EXAMPLES=20000 python -m pytest tests/test_fuzz.py

(every test then gets that many examples, and the run is random).
"""

from __future__ import annotations

import os
import string
import warnings
from unittest import mock

import numpy as np
from click.testing import CliRunner
from conftest import strict_loads
from hostile.contract import shown_to_users
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from oracle import close, run_torch, torch_grads

from gradcli import grad, limits
from gradcli.cli import main
from gradcli.errors import GradcliError
from gradcli.ops import NOT_METHODS
from gradcli.parse import parse_program
from gradcli.values import parse_value

LONG_RUN = os.environ.get("GRADCLI_FUZZ_EXAMPLES")


def fuzz_settings(default_examples: int):
    """Short and reproducible by default; GRADCLI_FUZZ_EXAMPLES=N asks for N random examples."""
    return settings(
        max_examples=int(LONG_RUN) if LONG_RUN else default_examples,
        derandomize=not LONG_RUN,
        deadline=None,  # a shared, noisy machine: time is checked in test_hostile, not here
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )


# ---------------------------------------------------------------- valid programs

UNARY = ["sin", "cos", "tanh", "exp", "sigmoid", "softplus", "atan", "relu", "abs", "sinh", "neg"]
BINARY = ["+", "-", "*", "/"]
NAMES = ["x", "y"]


@st.composite
def expressions(draw, names: list[str], depth: int = 3) -> str:
    """A numeric expression over `names`, spelled every way the grammar allows."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.integers(0, 4)) == 0:
            return draw(st.sampled_from(["2", "0.5", "3", "1e-3", "pi", "e", "(2*3)"]))
        return draw(st.sampled_from(names))
    kind = draw(st.sampled_from(["unary", "method", "binary", "binary", "power"]))
    inner = draw(expressions(names, depth - 1))
    if kind == "unary":
        op = draw(st.sampled_from(UNARY))
        return f"-({inner})" if op == "neg" else f"{op}({inner})"
    if kind == "method":
        op = draw(
            st.sampled_from([u for u in UNARY if u != "neg" and u not in NOT_METHODS])
        )  # no x.softplus()
        return f"({inner}).{op}()"
    if kind == "power":
        exponent = draw(st.sampled_from(["2", "3", "0", "1"]))
        return draw(
            st.sampled_from([f"({inner})**{exponent}", f"({inner})^{exponent}", f"pow({inner}, {exponent})"])
        )
    right = draw(expressions(names, depth - 1))
    op = draw(st.sampled_from(BINARY))
    if op == "/":
        right = f"(2 + sigmoid({right}))"  # a divisor that stays away from zero
    return f"({inner}) {op} ({right})"


@st.composite
def valid_programs(draw) -> tuple[str, dict[str, list | float]]:
    """(program text, values for its inputs); vectors are reduced so the output is scalar."""
    vector = draw(st.booleans())
    values = {
        name: (
            [draw(st.floats(-2, 2, allow_nan=False)) for _ in range(3)]
            if vector
            else draw(st.floats(-2, 2, allow_nan=False))
        )
        for name in NAMES
    }
    statements = []
    available = list(NAMES)
    for index in range(draw(st.integers(0, 2))):
        statements.append(f"t{index} = {draw(expressions(available, 2))}")
        available.append(f"t{index}")
    last = draw(expressions(available, 2))
    reduce = draw(st.sampled_from(["sum", "mean"])) if vector else ""
    if vector:
        last = draw(
            st.sampled_from([f"{reduce}({last})", f"({last}).{reduce}()", f"{reduce}({last}, dim=0)"])
        )
    statements.append(f"out = {last}" if draw(st.booleans()) else last)
    separator = draw(st.sampled_from(["; ", "\n"]))
    return separator.join(statements), values


# ---------------------------------------------------------------- hostile text

TOKENS = [
    "(", ")", "[", "]", "{", "}", ",", ".", ";", "\n", "=", "==", ":", "**", "^", "@", "*", "/", "-", "+",
    "%", "~", "__", "__class__", "__import__('os')", ".T", ".sum()", "sum(", "dim=", "keepdim=True",
    "dim=99", "lambda: ", "'s'", '"', "#", "\\", "\x00", "\t", "  ", "1e999", "9**9**9", "10**100", "0x",
    "1j", "None", "True", "é", "\u200b", "\ud800", "x.", "x", "y", "t0", "pi", "e", "sqrt(", "log(",
    "matmul(", "@x", "if", "for", "import", "yield", "await", "*x", "**x", ":=", "...",
    # issue 13's later forms: bool logic, conversions, gather, one_hot, sizes, NumPy keywords
    "&", "|", "(x > 0)", "~", ".float()", ".double()", ".long()", ".bool()", ".gather(", ".gather(1, x)",
    "index=", "F.one_hot(", "num_classes=", "10**12", "-999999999999", "F.normalize(", "torch.max(",
    "//", "B, T = x.shape", "torch.arange(", "list(range(", "axis=", "keepdims=True", ".clamp_min(",
    "torch.logical_and(", "F.sin(", ".softplus()", "float(",
    # constructors and new axes
    "torch.tensor([", "torch.ones(", "torch.arange(", "torch.linspace(0, 1, ", "torch.full((2,), ",
    "dtype=torch.long", "requires_grad=True", "[:, None]", "np.array(", "torch.eye(",
]  # fmt: skip
PROGRAM_CHARS = string.ascii_letters + string.digits + "()[]{}.,;:=+-*/^@%~#\\'\" \t\n_\x00é"

random_text = st.one_of(
    st.text(max_size=120),
    st.text(alphabet=PROGRAM_CHARS, max_size=120),
    st.lists(st.sampled_from(TOKENS), max_size=25).map("".join),
)


@st.composite
def mutated_programs(draw) -> str:
    """A valid program with a few random edits: deletions, insertions, duplications, swaps."""
    text, _ = draw(valid_programs())
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 8)))
        edit = draw(st.sampled_from(["delete", "insert", "insert", "duplicate", "swap", "replace"]))
        if edit == "delete":
            text = text[:i] + text[j:]
        elif edit == "insert":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        elif edit == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif edit == "swap" and j - i >= 2:
            text = text[:i] + text[j - 1] + text[i + 1 : j - 1] + text[i] + text[j:]
        else:
            text = text[:i] + draw(st.sampled_from(PROGRAM_CHARS)) + text[j:]
    return text


any_text = st.one_of(random_text, mutated_programs())


# ---------------------------------------------------------------- the parser


def _parse_or_refuse(text: str) -> None:
    try:
        parse_program(text)
    except GradcliError as exc:
        assert str(exc) and "\n" not in str(exc)


@fuzz_settings(400)
@given(random_text)
def test_parser_only_raises_gradcli_errors_on_random_text(text: str) -> None:
    _parse_or_refuse(text)


@fuzz_settings(400)
@given(mutated_programs())
def test_parser_only_raises_gradcli_errors_on_mutated_programs(text: str) -> None:
    _parse_or_refuse(text)


@fuzz_settings(100)
@given(valid_programs())
def test_generated_programs_are_valid(case) -> None:
    """The generator itself is checked, so the mutation test starts from real programs."""
    text, values = case
    assert set(parse_program(text).inputs) <= set(values)


VALUE_TOKENS = [
    "zeros(", "ones(", "full(", "eye(", "arange(", "linspace(", "rand(", "randn(", ")", ",", "[", "]",
    "-", "1e999", "1e-320", "nan", "inf", "0", "1", "2.5", "1e4", "-1", '"', "true", "null", "{", "}",
    ":", " ", "1e308", "_", "0x10", "1j", "'", "\\", "__import__", "eval(",
]  # fmt: skip


@fuzz_settings(300)
@given(st.one_of(st.text(max_size=40), st.lists(st.sampled_from(VALUE_TOKENS), max_size=12).map("".join)))
def test_values_only_raise_gradcli_errors(text: str) -> None:
    # A lower element cap keeps the fuzzer's allocations small; the checks are the same.
    with warnings.catch_warnings(), mock.patch.object(limits, "MAX_ELEMENTS", 1_000_000):
        warnings.simplefilter("error")  # a NumPy or parser warning would reach the user
        try:
            array = parse_value(text, rng=np.random.default_rng(0))
        except GradcliError as exc:
            assert "\n" not in str(exc)
        else:  # integer and bool literals keep torch.tensor's dtype (a --const's); the rest is float
            assert array.dtype in (np.float64, np.int64, np.bool_)


# ---------------------------------------------------------------- the CLI


def _values_for(text: str, vector: bool) -> list[str]:
    """--at options for a program's free names (or a plausible guess when it does not parse)."""
    try:
        names = list(parse_program(text).inputs)
    except GradcliError:
        names = ["x"]
    value = "[0.5, -1.5, 2.0]" if vector else "0.5"
    return [option for name in names for option in ("--at", f"{name}={value}")]


def assert_cli_contract(result) -> None:
    """Success: strict JSON on stdout, nothing on stderr. Failure: one `error:` line, exit 1 or 2."""
    stderr = result.stderr
    event(f"exit {result.exit_code}")  # --hypothesis-show-statistics shows how many got through
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    if result.exit_code == 0:
        assert stderr == ""
        strict_loads(result.stdout)
        return
    assert result.exit_code in (1, 2), (result.exit_code, stderr, result.exception)
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr


@fuzz_settings(150)
@given(any_text, st.booleans(), st.booleans())
def test_cli_never_shows_a_traceback(text: str, vector: bool, symbolic: bool) -> None:
    runner = CliRunner()
    options = _values_for(text, vector) + ["--format", "json"] + ([] if symbolic else ["--no-symbolic"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # `--` keeps a program such as `-h` from being read as an option (users quote it too).
        result = runner.invoke(main, ["grad", *options, "--", text], env={"NO_COLOR": "1"})
    assert_cli_contract(result)
    assert shown_to_users(caught) == []


@fuzz_settings(60)
@given(any_text)
def test_cli_reads_programs_from_stdin_safely(text: str) -> None:
    runner = CliRunner()
    data = text.encode("utf-8", "surrogatepass")  # lone surrogates become invalid UTF-8
    result = runner.invoke(main, ["grad", "-", *_values_for(text, False), "--format", "json"], input=data)
    assert_cli_contract(result)


# ---------------------------------------------------------------- valid programs agree with PyTorch


@fuzz_settings(80)
@given(valid_programs())
def test_valid_programs_agree_with_pytorch(case) -> None:
    text, values = case
    inputs = {name: values[name] for name in parse_program(text).inputs}
    torch_run = run_torch(text, inputs)
    try:
        result = grad(text, at=inputs, symbolic=False)
    except GradcliError as exc:  # `2*3`: Python folds it to a float, torch never sees a tensor
        assert "constant number" in str(exc) and isinstance(torch_run.output, float)
        return
    expected = torch_run.output.detach().numpy()
    expected_grads = torch_grads(text, inputs)
    assert close(result.value, expected, rtol=1e-7, atol=1e-9), (result.value, expected)
    for name in inputs:
        ours = result.grads[name]
        theirs = expected_grads[name]
        if theirs is None:  # no path from the output to this leaf: torch leaves .grad None
            assert ours is None or not np.any(ours)
        else:
            assert close(ours, theirs, rtol=1e-7, atol=1e-9), (name, ours, theirs)
