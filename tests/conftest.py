"""Shared test helpers: a CliRunner that keeps stdout and stderr apart."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner
from hypothesis import settings

from gradcli.cli import main

# Every run starts cold: the symbolic cache is off unless a test turns it on (test_cache.py),
# so no test depends on what an earlier one (or the user's own runs) left on disk.
os.environ["GRADCLI_CACHE_DIR"] = ""

# The same examples on every run, so CI cannot fail by chance and a failure reproduces.
# GRADCLI_RANDOM_TESTS=1 explores new examples; a failure then prints the blob to
# reproduce it (@reproduce_failure) with the falsifying example.
settings.register_profile("deterministic", derandomize=True, database=None, print_blob=True)
settings.register_profile("random", derandomize=False, database=None, print_blob=True)
settings.load_profile("random" if os.environ.get("GRADCLI_RANDOM_TESTS") else "deterministic")


@pytest.fixture
def run():
    """run("grad", EXPR, "--at", ...) -> click Result with .exit_code, .stdout, .stderr."""
    runner = CliRunner()

    def invoke(*args: str, input: str | bytes | None = None):
        return runner.invoke(main, list(args), input=input, env={"COLUMNS": "80", "NO_COLOR": "1"})

    return invoke


@pytest.fixture
def run_json(run):
    """Run a grad command with --format json and return the parsed document (strictly)."""

    def invoke(*args: str, input: str | None = None) -> dict:
        result = run(*args, "--format", "json", input=input)
        assert result.exit_code == 0, result.stderr
        return strict_loads(result.stdout)

    return invoke


def _reject_constant(name: str):
    raise ValueError(f"non-strict JSON literal {name}")


def strict_loads(text: str):
    """json.loads that refuses NaN/Infinity literals, as an RFC 8259 parser would."""
    return json.loads(text, parse_constant=_reject_constant)
