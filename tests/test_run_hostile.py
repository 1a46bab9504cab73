"""Hostile `gradcli run` scripts are refused quickly and safely (issue 15), with the contract
of tests/test_hostile.py: exit 1, one `error:` line naming what was refused, nothing on
stdout, no file created, CPU time under the same bound; a few also as real processes."""

from __future__ import annotations

import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner
from hostile.cases import CANARY, Case
from hostile.contract import shown_to_users
from hostile.scripts import SCRIPT_CAPS_TESTED_ELSEWHERE, SCRIPT_CASES
from test_hostile import CPU_SECONDS, ENV, WALL_SECONDS, assert_refused

from gradcli import limits
from gradcli.cli import main

WORK_CAP_CPU_SECONDS = 6.0
# The cases here meet MAX_SCRIPT_WORK at a fifth of its shipped size (about ten seconds of work,
# the budget tutorials' training loops need): the same counting and refusal in two seconds, so CI
# does not spend minutes on them. test_hostile_script_in_a_real_process meets the shipped budget.
IN_PROCESS_WORK = 2_000_000_000


def _stdin(case: Case, canary: Path) -> bytes:
    assert case.stdin is not None
    return case.stdin.replace(CANARY.encode(), str(canary).encode())


@pytest.mark.parametrize("case", SCRIPT_CASES, ids=[c.id for c in SCRIPT_CASES])
def test_hostile_script_is_refused_quickly_and_safely(case: Case, tmp_path: Path, monkeypatch) -> None:
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    canary = tmp_path / "canary"
    monkeypatch.chdir(workdir)
    monkeypatch.setattr(limits.Script, "MAX_SCRIPT_WORK", IN_PROCESS_WORK)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        started = time.process_time()
        result = CliRunner().invoke(main, list(case.args), input=_stdin(case, canary), env=ENV)
        cpu = time.process_time() - started
    assert_refused(case, result.exit_code, result.stdout, result.stderr)
    # a script stopped by MAX_SCRIPT_WORK has used its whole budget (IN_PROCESS_WORK), one
    # stopped by MAX_SCRIPT_BYTES has filled most of 2 GB first
    budgets = ("MAX_SCRIPT_WORK", "MAX_SCRIPT_BYTES")
    bound = WORK_CAP_CPU_SECONDS if any(b in f for b in budgets for f in case.fragments) else CPU_SECONDS
    assert cpu < bound, f"{case.id} took {cpu:.2f} s of CPU"
    assert not canary.exists(), "the script's code ran"
    assert list(workdir.iterdir()) == [], "a file appeared in the working directory"
    assert shown_to_users(caught) == []


def test_every_script_cap_that_refuses_work_is_hit_by_a_hostile_script() -> None:
    caps = {name for name in vars(limits.Script) if name.startswith("MAX_")}
    hit = {cap for cap in caps for case in SCRIPT_CASES if any(cap + "=" in f for f in case.fragments)}
    assert hit | SCRIPT_CAPS_TESTED_ELSEWHERE == caps
    assert len({c.id for c in SCRIPT_CASES}) == len(SCRIPT_CASES) >= 50


@pytest.mark.parametrize("case_id", ["run-import-os", "run-class-walk", "run-steps", "run-tensor-loop"])
def test_hostile_script_in_a_real_process(case_id: str, tmp_path: Path) -> None:
    case = next(c for c in SCRIPT_CASES if c.id == case_id)
    canary = tmp_path / "canary"
    done = subprocess.run(
        [sys.executable, "-m", "gradcli", *case.args],
        input=_stdin(case, canary),
        capture_output=True,
        timeout=WALL_SECONDS,
        env=ENV,
        cwd=tmp_path,
    )
    assert_refused(case, done.returncode, done.stdout.decode(), done.stderr.decode())
    assert not canary.exists() and list(tmp_path.iterdir()) == []
