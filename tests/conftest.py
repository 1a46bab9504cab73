"""Shared test helpers: a CliRunner that keeps stdout and stderr apart."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from gradcli.cli import main

# Every run starts cold: the symbolic cache is off unless a test turns it on (test_cache.py),
# so no test depends on what an earlier one (or the user's own runs) left on disk.
os.environ["GRADCLI_CACHE_DIR"] = ""


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
