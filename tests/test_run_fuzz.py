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

import json
import os
import threading
from pathlib import Path

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


# Known gaps, as a ratchet (like tests/corpus/known_gaps.json): sampled cases where gradcli ends
# cleanly but not as torch does (accepts what torch refuses, names another exception type or
# none, prints another result). A listed case that now passes fails the test until it is
# removed, so the list only shrinks. Crashes, internal errors and hangs are never listed.
# GRADCLI_REGEN_GOLDEN=1 python -m pytest tests/test_run_fuzz.py rewrites the file.
GAPS_FILE = Path(__file__).parent / "run_fuzz_gaps.json"
TOLERATED = {"accepts-what-torch-refuses", "wrong-type", "untyped-error", "wrong-output"}
REGENERATE = os.environ.get("GRADCLI_REGEN_GOLDEN") == "1"
GAPS: dict[str, str] = {} if REGENERATE or not GAPS_FILE.exists() else json.loads(GAPS_FILE.read_text())


@pytest.fixture(scope="module", autouse=True)
def _rewrite_gaps():
    yield
    if REGENERATE:
        GAPS_FILE.write_text(json.dumps(dict(sorted(GAPS.items())), indent=1) + "\n")


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c.id for c in CASES])
def test_run_ends_cleanly_with_torchs_exception_type(
    index: int, gradcli_outcomes: _Outcomes, torch_outcomes: _Outcomes
) -> None:
    case = CASES[index]
    ours = gradcli_outcomes.outcome(index)
    theirs = torch_outcomes.outcome(index)
    status, category, detail = fuzz.verdict(case, ours, theirs)
    shown = f"{category}: {detail}\n{fuzz.explain(case, ours, theirs)}"
    if REGENERATE and status != fuzz.PASS and category in TOLERATED:
        GAPS[case.id] = category
    if status == fuzz.PASS:
        assert case.id not in GAPS, f"fixed: remove {case.id!r} from {GAPS_FILE.name}"
    else:
        assert category in TOLERATED, shown  # a crash, an internal error or a hang: never a gap
        assert GAPS.get(case.id) == category, f"a new gap (not in {GAPS_FILE.name}): {shown}"


def test_the_known_gaps_are_few_and_only_of_tolerated_kinds() -> None:
    assert set(GAPS.values()) <= TOLERATED
    assert len(GAPS) <= 100  # issue 24 closed the sample's crashes; the rest may only shrink


def test_the_fuzz_reaches_every_callee_the_interpreter_hands_out() -> None:
    """A function added to the interpreter's tables is fuzzed without an edit to the fuzzer."""
    callees = fuzz.surface()
    assert len(callees) > 400
    names = {c.spelled for c in callees}
    assert {"x.add", "x.sum", "torch.full", "torch.arange", "torch.randint", "F.softmax"} <= names
    assert {c.callee for c in CASES if not c.callee.startswith("class:")} == names
    assert {c.callee for c in CASES} >= {f"class:{family}" for family in fuzz.CLASS_FAMILIES}
