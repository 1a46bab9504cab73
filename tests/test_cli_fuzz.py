"""Not one internal error anywhere: a property test over whole command lines (issue 11).

Hypothesis builds argv for every command and every option click knows of (read from
`gradcli.cli.main` and each command's `params`, so a new option is fuzzed without an
edit), with valid, boundary and hostile values: numbers 0, negative, nan, inf, huge;
strings empty, unicode, paths that do not exist or cannot be written; JSON Lines for
--batch with NaN/Infinity/1e400, ragged arrays and wrong keys, from stdin or a file.
Each run must keep the contract of SPEC section 2 (tests/cli_strategies.py, violations()):

- exit 0, 1 or 2; on a non-zero exit exactly one `error:` line on stderr (`check`'s
  verdict "the answers disagree", exit 1 with the report on stdout, is the exception);
- no traceback, no internal error, no Python or NumPy warning, no source location;
- strict JSON wherever JSON is written: --format json, every --batch output line;
- `graph -o FILE` writes FILE (`-o -` is stdout); `--debug` is accepted after the command.

Every run happens in a fresh temporary working directory, so files go nowhere else.
A failure prints the command line to paste (with the files and stdin it needs).

The default run is short and derandomised for CI (about 15 s). A long, random one:

    GRADCLI_FUZZ_EXAMPLES=3000 python -m pytest tests/test_cli_fuzz.py

(every test then gets that many examples).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import warnings
from unittest import mock

import click
import pytest
from cli_strategies import Invocation, commands, has_strategy, invocations, parameters, violations
from click.testing import CliRunner
from hostile.contract import shown_to_users
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from gradcli import limits
from gradcli.cli import main

LONG_RUN = os.environ.get("GRADCLI_FUZZ_EXAMPLES")


def fuzz_settings(default_examples: int):
    """As in test_fuzz.py: short and reproducible by default; GRADCLI_FUZZ_EXAMPLES=N for N random ones."""
    return settings(
        max_examples=int(LONG_RUN) if LONG_RUN else default_examples,
        derandomize=not LONG_RUN,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        database=None,
    )


# Lower caps keep a fuzzed `zeros(1000,1000)` cheap; the limit checks themselves run the same.
SMALL_LIMITS = {"MAX_ELEMENTS": 1_000_000, "MAX_GRAPH_ELEMENTS": 5_000_000, "MAX_VALUE_CHARS": 1_000_000}
ENV = {"NO_COLOR": "1", "COLUMNS": "80", "GRADCLI_CACHE_DIR": ""}


@contextlib.contextmanager
def _inside(folder: str):
    """contextlib.chdir, which Python 3.10 lacks."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def run(invocation: Invocation) -> tuple[object, list[str]]:
    """Run one command line in a fresh folder; return click's result and the contract's violations."""
    runner = CliRunner()
    with (
        tempfile.TemporaryDirectory(prefix="gradcli-fuzz-") as cwd,
        _inside(cwd),  # relative paths (-o g.png, --batch points.jsonl) land in it
        mock.patch.multiple(limits, **SMALL_LIMITS),
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        for name, data in invocation.files.items():
            if data is None:
                os.makedirs(name, exist_ok=True)
            else:
                with open(name, "wb") as handle:
                    handle.write(data)
        result = runner.invoke(main, invocation.argv, input=invocation.stdin, env=ENV)
        problems = violations(invocation, result, shown_to_users(caught), cwd)
    return result, problems


def assert_contract(invocation: Invocation) -> None:
    result, problems = run(invocation)
    if currently_in_test_context():  # --hypothesis-show-statistics counts the exit codes
        event(f"exit {result.exit_code}")
    assert not problems, (
        f"{'; '.join(problems)}\n$ {invocation.shell()}\nexit {result.exit_code}\n"
        f"stderr: {result.stderr[:1500]!r}\nstdout: {result.stdout[:500]!r}"
    )


# ---------------------------------------------------------------- every option has a strategy


def test_every_command_and_option_has_a_value_strategy():
    """A new option (or argument) fails here until cli_strategies.py can fuzz it."""
    missing = [
        f"{command} {param.opts[0] if isinstance(param, click.Option) else param.name}"
        for command in commands()
        for param in parameters(main.commands[command])
        if not has_strategy(param)
    ]
    missing += [f"gradcli {p.opts[0]}" for p in parameters(main) if not has_strategy(p)]
    assert missing == [], f"no value strategy in tests/cli_strategies.py for: {missing}"


def test_the_fuzzer_reaches_every_command():
    assert set(commands()) >= {"grad", "jacobian", "hessian", "check", "graph", "ops"}


# ---------------------------------------------------------------- the checker itself


def typed(*argv: str, stdin: bytes | None = None) -> Invocation:
    """An Invocation as a user would type it (what the builder records, read back from argv)."""
    command = next((a for a in argv if a in commands()), None)
    names = {"--format": "fmt", "-o": "output", "--output": "output", "--batch": "batch"}
    given = {names[a]: b for a, b in zip(argv, argv[1:]) if a in names}
    return Invocation(
        list(argv), command, argv.index(command) if command else len(argv), stdin=stdin, given=given
    )


GOOD = [
    typed("grad", "x**2", "--at", "x=2", "--format", "json"),
    typed("grad", "(2*x)**3"),
    typed("grad", "log(x)", "--at", "x=0", "--format", "plain"),  # a `warning:` line, exit 0
    typed("grad"),  # click's help on stderr, exit 2
    typed(),
    typed("--version"),
    typed("grad", "x*y", "--batch", "-", stdin=b'{"x": 2, "y": 3}\n{"x": 1, "y": 0}\n'),
    typed("check", "relu(x)", "--at", "x=0", "--format", "json"),  # the verdict "disagree", exit 1
    typed("graph", "x**2", "--at", "x=2", "-o", "g.txt"),
    typed("hessian", "x**3*y", "--at", "x=2", "--at", "y=3", "--format", "json"),
    typed("jacobian", "x**2", "--at", "x=[1,2,3]"),
    typed("ops", "--format", "json"),
    typed("grad", "x**2", "--at", "x=nope"),  # exit 1, one error line
    typed("grad", "x**2", "--passes", "0"),  # exit 2, one error line
]


@pytest.mark.parametrize("invocation", GOOD, ids=lambda i: " ".join(i.argv)[:60] or "gradcli")
def test_the_contract_accepts_good_runs(invocation):
    """The checker is no stricter than the spec: these runs keep the contract today."""
    assert_contract(invocation)


# ---------------------------------------------------------------- what the long run found

# Minimal command lines from the long run on 2026-11-23 (one per root cause): each broke the
# contract then. They stay as plain regression tests, so a fix shows up as a pass here.
REPORTED = {
    "seed-negative-randn": typed("grad", "x.sum()", "--at", "x=randn(3)", "--seed", "-1"),
    "hessian-abs": typed("hessian", "abs(x)*x", "--at", "x=2"),
    "order-2-abs": typed("grad", "abs(x)*x", "--at", "x=1", "--order", "2"),
    "hessian-scalar-times-vector": typed("hessian", "sum(x*y)", "--at", "x=[1,2]", "--at", "y=2"),
    "check-eps-0": typed("check", "sin(x)", "--at", "x=1", "--eps", "0"),
    "check-eps-nan": typed("check", "sin(x)", "--at", "x=1", "--eps", "nan"),
    "check-atol-nan-json": typed("check", "sin(x)", "--at", "x=1", "--atol", "nan", "--format", "json"),
    "check-rtol-inf-json": typed("check", "sin(x)", "--at", "x=1", "--rtol", "inf", "--format", "json"),
    "batch-nan-reduction": typed("grad", "sum(x)", "--batch", "-", stdin=b'{"x": NaN}\n'),
    "batch-1e400-reduction": typed("grad", "x.sum()", "--batch", "-", stdin=b'{"x": [1e400]}\n'),
    "batch-nan-echoed": typed("grad", "sin(x)", "--batch", "-", stdin=b'{"x": NaN}\n'),
    "batch-infinity-echoed": typed("grad", "x*2", "--batch", "-", stdin=b'{"x": -Infinity}\n'),
    "batch-5000-digit-integer": typed(
        "grad", "sin(x)", "--batch", "-", stdin=b'{"x": 1' + b"0" * 5000 + b"}\n"
    ),
    "batch-mean-of-empty": typed("grad", "mean(x)", "--batch", "-", stdin=b'{"x": []}\n'),
    "mean-of-empty": typed("grad", "mean(x)", "--at", "x=[]"),
    "hessian-mean-of-empty": typed("hessian", "mean(x)", "--at", "x=ones(0,3)"),
    "graph-o-png-is-ascii": typed("graph", "x**2", "--at", "x=2", "-o", "g.png"),
    "graph-o-svg-is-ascii": typed("graph", "x**2", "--at", "x=2", "-o", "g.svg"),
    "graph-o-dash-is-a-file": typed("graph", "x**2", "--at", "x=2", "-o", "-"),
}
REPORTED["debug-after-command"] = typed("grad", "x**2", "--debug", "--at", "x=2")
REPORTED["debug-after-command"].debug_after_command = True


@pytest.mark.parametrize("invocation", REPORTED.values(), ids=REPORTED.keys())
def test_reported_command_lines_keep_the_contract(invocation):
    assert_contract(invocation)


# ---------------------------------------------------------------- the property

# Examples per test in the default (CI) run: about 15 s in all on a shared two-core machine.
SHORT = {"grad": 300, "jacobian": 100, "hessian": 100, "check": 100, "graph": 100, "ops": 30, None: 30}


@pytest.mark.parametrize("command", list(SHORT), ids=lambda c: c or "group")
def test_every_command_line_keeps_the_contract(command):
    assert command is None or command in commands()

    @fuzz_settings(SHORT[command])
    @given(invocations(command))
    def check(invocation: Invocation) -> None:
        assert_contract(invocation)

    check()


@fuzz_settings(200)
@given(invocations("grad", require=("batch",), exclude=("at", "gradients", "passes", "order", "explain")))
def test_batch_lines_keep_the_contract(invocation: Invocation) -> None:
    """--batch from stdin or a file: NaN/Infinity/1e400, ragged, wrong keys, bad UTF-8, chunk edges."""
    assert_contract(invocation)


@fuzz_settings(100)
@given(invocations("graph", require=("output",)))
def test_graph_files_keep_the_contract(invocation: Invocation) -> None:
    """-o FILE: missing folders, directories, unwritable and special files, `-`, odd names."""
    assert_contract(invocation)


@fuzz_settings(100)
@given(st.sampled_from(["grad", "jacobian", "hessian", "check", "graph"]).flatmap(invocations))
def test_any_command_keeps_the_contract(invocation: Invocation) -> None:
    """One more mixed pass, so shrinking may also cross from one command to another."""
    assert_contract(invocation)
