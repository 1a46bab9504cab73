"""`gradcli run`'s own argument fuzz (issue 24), the CI size: a seeded sample of the cases of
tests/run_fuzz_cases.py (one case of every supported callee, and more drawn from the rest),
each run by gradcli and by python+torch.

Each case is one test, named callee|receiver|mutation|value; a failure shows the script, what
gradcli did (with the traceback's last frame of an exception that escaped run_script) and what
torch did. gradcli and torch each run the cases in a worker process of their own, side by side,
so a hang or a memory blow-up stops a worker, never pytest.

What must hold: no exception escapes run_script and no "internal error" (crash), the run ends
within CASE_SECONDS (hang), where torch raises gradcli's error line names the same exception type,
and where torch prints a result gradcli prints the same text or refuses with a clean error. GRADCLI_LONG_FUZZ=1 runs every case (tens of thousands;
`python tests/run_fuzz_cases.py --long` runs them in worker processes and writes a catalogue).
"""

from __future__ import annotations

import os
import threading

import pytest

pytest.importorskip("torch", reason="torch (the test oracle) is not installed: pip install -e '.[test]'")

import run_fuzz_cases as fuzz  # noqa: E402

LONG = os.environ.get("GRADCLI_LONG_FUZZ") == "1"
CASES = fuzz.all_cases()
if not LONG:
    CASES = fuzz.sample(CASES, fuzz.SAMPLE_SIZE)


class _Outcomes:
    """Each case's outcome under one engine (gradcli or torch), from a worker process of its own
    (a hang or a memory blow-up stops the worker, not pytest); the two workers run side by side
    and their outcomes stream in, in the tests' order."""

    def __init__(self, engine: str, scripts: list[str]) -> None:
        self.engine = engine
        self.outcomes: dict[int, dict] = {}
        self.done = False
        self.changed = threading.Condition()
        threading.Thread(target=self._run, args=(scripts,), daemon=True).start()

    def _run(self, scripts: list[str]) -> None:
        try:
            fuzz.run_in_workers(self.engine, scripts, on_result=self._heard)
        finally:
            with self.changed:
                self.done = True
                self.changed.notify_all()

    def _heard(self, index: int, outcome: dict) -> None:
        with self.changed:
            self.outcomes[index] = outcome
            self.changed.notify_all()

    def outcome(self, index: int) -> dict:
        with self.changed:
            self.changed.wait_for(lambda: index in self.outcomes or self.done, timeout=600)
        assert index in self.outcomes, f"{self.engine}'s worker gave no outcome for this case"
        return self.outcomes[index]

    def __repr__(self) -> str:  # pytest shows the test's arguments: not all of them
        return f"<{self.engine}'s outcomes of {len(self.outcomes)} cases>"


@pytest.fixture(scope="module")
def gradcli_outcomes() -> _Outcomes:
    return _Outcomes("gradcli", [c.script for c in CASES])


@pytest.fixture(scope="module")
def torch_outcomes() -> _Outcomes:
    return _Outcomes("torch", [c.script for c in CASES])


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c.id for c in CASES])
def test_run_ends_cleanly_with_torchs_exception_type(
    index: int, gradcli_outcomes: _Outcomes, torch_outcomes: _Outcomes
) -> None:
    case = CASES[index]
    ours = gradcli_outcomes.outcome(index)
    theirs = torch_outcomes.outcome(index)
    status, category, detail = fuzz.verdict(case, ours, theirs)
    assert status == fuzz.PASS, f"{category}: {detail}\n{fuzz.explain(case, ours, theirs)}"


def test_the_fuzz_reaches_every_callee_the_interpreter_hands_out() -> None:
    """A function added to the interpreter's tables is fuzzed without an edit to the fuzzer."""
    callees = fuzz.surface()
    assert len(callees) > 400
    names = {c.spelled for c in callees}
    assert {"x.add", "x.sum", "torch.full", "torch.arange", "torch.randint", "F.softmax"} <= names
    assert {c.callee for c in CASES} == names
