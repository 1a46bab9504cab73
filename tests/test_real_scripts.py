"""Real PyTorch scripts by other people (tests/real_scripts/, sources in SOURCES.md), run as
`python SCRIPT` runs them under torch and under `gradcli run --python` (issue 40's measure).

Both sides hash strings alike (PYTHONHASHSEED=0: one script's vocabulary comes from a set).
A script listed in real_scripts/known_gaps.json does not run as torch runs it yet: `"error"`
names the gradcli error it still stops with (a script that gets further fails here, so the
entry is updated), `"differs"` says why its output differs (it must still differ), and
`"float32"` says which float32 last bits part it from torch's on an Intel Xeon with AVX512
(measured there): it must run to its end, and may print torch's bytes on another CPU's
kernels (tests/blas_kernels.py). The list may only shrink; every other script must print
torch's bytes and end as torch ends.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from torch_server import run_under_torch

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "tests" / "real_scripts"
CORPUS = sorted(FOLDER.glob("*.py"))
GAPS: dict[str, dict[str, str]] = json.loads((FOLDER / "known_gaps.json").read_text())
_ADDRESS = re.compile(r"at 0x[0-9a-f]+")


def _mask(text: str) -> str:
    return _ADDRESS.sub("at 0x…", text)


def _ours(path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    command = [sys.executable, "-m", "gradcli", "run", path.name]
    return subprocess.run(command, cwd=path.parent, env=env, capture_output=True, text=True, timeout=600)


def test_the_corpus_and_its_gap_list():
    assert len(CORPUS) >= 25  # SOURCES.md names each one's source
    assert set(GAPS) <= {p.stem for p in CORPUS}
    assert all(set(gap) <= {"error", "differs", "float32"} and len(gap) == 1 for gap in GAPS.values())


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_a_real_script_runs_as_under_torch(path):
    ours = _ours(path)
    gap = GAPS.get(path.stem, {})
    if "error" in gap:  # still stops where it stopped: no need to ask torch
        assert ours.returncode == 1 and gap["error"] in ours.stderr, (ours.returncode, ours.stderr[-500:])
        return
    theirs = run_under_torch(path=path, hash_seed="0", timeout=300)
    same = _mask(ours.stdout) == _mask(theirs.stdout) and ours.returncode == theirs.returncode
    if "differs" in gap:
        assert ours.returncode == 0 and not same, (
            f"{path.stem} now runs as torch: take it off known_gaps.json"
        )
    elif "float32" in gap:  # the digits follow the CPU's kernels; the run itself must not stop
        assert ours.returncode == 0, ours.stderr[-500:]
    else:
        assert same, (ours.stderr[-500:], _first_difference(ours.stdout, theirs.stdout))


def _first_difference(ours: str, theirs: str) -> str:
    for i, (a, b) in enumerate(zip(_mask(ours).splitlines(), _mask(theirs).splitlines())):
        if a != b:
            return f"line {i + 1}: ours {a!r}, torch {b!r}"
    return "one output is longer"
