"""The "Speak PyTorch" corpus (issue 13), as a ratchet.

Every case's torch snippet must run (the corpus is valid PyTorch). A case gradcli accepts
must agree with torch: value, every leaf's grad (1e-9 in float64) and the output's
grad_fn. A case gradcli refuses must be listed in KNOWN_GAPS with the error it gives
today; when a change makes a listed case run, this test fails until the id is removed,
so the list only ever shrinks and the corpus report stays honest.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from corpus import CASES, Case, refusal, run_gradcli, run_torch, tolerance

from gradcli.errors import GradcliError

pytest.importorskip("torch", reason="torch (the test oracle) is not installed: pip install -e '.[test]'")

# Case id -> gradcli's one-line error for it today (GradcliError.message, without the hint).
# GRADCLI_REGEN_GOLDEN=1 python -m pytest tests/test_corpus.py rewrites the file from what
# gradcli says now; the diff then shows which cases started to run.
GAPS_FILE = Path(__file__).parent / "corpus" / "known_gaps.json"
if os.environ.get("GRADCLI_REGEN_GOLDEN"):
    GAPS_FILE.write_text(
        json.dumps({c.id: r for c in CASES if not c.out_of_scope and (r := refusal(c))}, indent=1) + "\n"
    )
KNOWN_GAPS: dict[str, str] = json.loads(GAPS_FILE.read_text())

OUT_OF_SCOPE = {c.id for c in CASES if c.out_of_scope}


def test_corpus_shape() -> None:
    """At least 60 cases, unique ids, each with a source; the gap list names only real cases."""
    ids = [c.id for c in CASES]
    assert len(ids) >= 60
    assert len(set(ids)) == len(ids)
    assert all(c.source and c.program and c.torch for c in CASES)
    assert set(KNOWN_GAPS) <= set(ids), sorted(set(KNOWN_GAPS) - set(ids))
    assert not set(KNOWN_GAPS) & OUT_OF_SCOPE, "out-of-scope cases are not gaps"
    assert len(OUT_OF_SCOPE) <= len(CASES) // 10, "keep out-of-scope cases few"


def _close(actual: object, expected: object, rtol: float) -> bool:
    a, b = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=rtol * 1e-3, equal_nan=True))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    expected = run_torch(case)  # first: the corpus itself must be valid PyTorch
    try:
        result = run_gradcli(case)
    except GradcliError as exc:
        if case.out_of_scope:
            return
        assert case.id in KNOWN_GAPS, f"gradcli refuses {case.id}: {exc.message}"
        assert exc.message == KNOWN_GAPS[case.id], "the refusal changed: update KNOWN_GAPS"
        return
    assert not case.out_of_scope, f"{case.id} is marked out of scope but runs"
    assert case.id not in KNOWN_GAPS, f"{case.id} runs now: remove it from KNOWN_GAPS"
    rtol = tolerance(case)
    assert _close(result.value, expected.value, rtol), (result.value, expected.value)
    for name in case.at:
        got, want = result.grads[name], expected.grads[name]
        assert (got is None) == (want is None), name
        if want is not None:
            assert _close(got, want, rtol), (name, got, want)
    assert result.output.grad_fn == expected.grad_fn
