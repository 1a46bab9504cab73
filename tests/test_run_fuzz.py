"""`gradcli run`'s own argument fuzz (issue 24), the CI size: a seeded sample of the cases of
tests/run_fuzz_cases.py (every supported callee's baseline call, and hostile arguments spread
over the rest), each run by gradcli in this process and by python+torch in one worker process.

Each case is one test, named callee|receiver|mutation|value; a failure shows the script, what
gradcli did and what torch did. What must hold: no exception escapes run_script and no
"internal error" (crash), the run ends within CASE_SECONDS (hang), where torch raises gradcli's
error line names the same exception type, and where torch prints a result gradcli prints the same
text or refuses with a clean error. GRADCLI_LONG_FUZZ=1 runs every case (tens of thousands;
`python tests/run_fuzz_cases.py --long` runs them in worker processes and writes a catalogue).
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("torch", reason="torch (the test oracle) is not installed: pip install -e '.[test]'")

import run_fuzz_cases as fuzz  # noqa: E402

LONG = os.environ.get("GRADCLI_LONG_FUZZ") == "1"
CASES = fuzz.all_cases()
if not LONG:
    CASES = fuzz.sample(CASES, fuzz.SAMPLE_SIZE)


class _Outcomes(dict):
    def __repr__(self) -> str:  # pytest shows the test's arguments: not all of them
        return f"<torch's outcomes of {len(self)} cases>"


@pytest.fixture(scope="module")
def torch_outcomes() -> dict[str, dict]:
    outcomes = fuzz.run_in_workers("torch", [c.script for c in CASES])
    return _Outcomes((case.id, outcome) for case, outcome in zip(CASES, outcomes))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_run_ends_cleanly_with_torchs_exception_type(case: fuzz.Case, torch_outcomes) -> None:
    theirs = torch_outcomes[case.id]
    ours = fuzz.run_gradcli(case.script)
    status, category, detail = fuzz.verdict(case, ours, theirs)
    assert status == fuzz.PASS, f"{category}: {detail}\n{fuzz.explain(case, ours, theirs)}"


def test_the_fuzz_reaches_every_callee_the_interpreter_hands_out() -> None:
    """A function added to the interpreter's tables is fuzzed without an edit to the fuzzer."""
    callees = fuzz.surface()
    assert len(callees) > 400
    names = {c.spelled for c in callees}
    assert {"x.add", "x.sum", "torch.full", "torch.arange", "torch.randint", "F.softmax"} <= names
    assert {c.callee for c in CASES} == names
