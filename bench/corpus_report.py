"""How much of the "Speak PyTorch" corpus (issue 13) gradcli runs as written, and why the rest is refused.

    python bench/corpus_report.py            # the figure and the refusal tables, as Markdown
    python bench/corpus_report.py --ids      # ... with every refused case's id under its reason

The figure is runs / total over the cases not marked out of scope; a case "runs" when
gradcli's API accepts its program. With torch installed, the cases that run are also
checked against their torch snippet, so a wrong answer never counts as speaking PyTorch.
Refusals are grouped by gradcli's first error message (its location and hint removed),
then by family (the quoted names blanked), sorted by count: the numbers the issue quotes.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from corpus import CASES, Case, refusal, run_gradcli, run_torch, tolerance  # noqa: E402

_WHERE = re.compile(r"^(line \d+, )?column \d+: ")
_QUOTED = re.compile(r"'[^']*'")


def reason(message: str) -> str:
    """An error message without its location, so equal causes group together."""
    return _WHERE.sub("", message)


def family(message: str) -> str:
    """A reason with its quoted names blanked: 'torch.exp' and 'F.relu' share one cause."""
    return _QUOTED.sub("'…'", reason(message))


def agrees(case: Case) -> bool | None:
    """Whether gradcli's value, grads and grad_fn match torch's; None when torch is absent."""
    try:
        expected = run_torch(case)
    except ImportError:
        return None
    result = run_gradcli(case)
    rtol = tolerance(case)

    def close(a: object, b: object) -> bool:
        x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        return x.shape == y.shape and bool(np.allclose(x, y, rtol=rtol, atol=rtol * 1e-3, equal_nan=True))

    grads_ok = all(
        (expected.grads[n] is None and result.grads[n] is None)
        or (expected.grads[n] is not None and close(result.grads[n], expected.grads[n]))
        for n in case.at
    )
    return close(result.value, expected.value) and grads_ok and result.output.grad_fn == expected.grad_fn


def _table(groups: dict[str, list[str]], title: str, ids: bool) -> list[str]:
    lines = [f"| {title} | cases |", "|---|---:|"]
    for key, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"| `{key}` | {len(members)} |")
        if ids:
            lines.append(f"| &nbsp;&nbsp;{', '.join(members)} | |")
    return lines


def report(ids: bool = False) -> str:
    """The Markdown report: the runs-as-written figure, then refusals by family and by message."""
    in_scope = [c for c in CASES if not c.out_of_scope]
    refused: dict[str, str] = {}
    running: list[Case] = []
    for case in in_scope:
        message = refusal(case)
        if message is None:
            running.append(case)
        else:
            refused[case.id] = message
    verdicts = {c.id: agrees(c) for c in running}
    lines = [
        f"# gradcli and the Speak-PyTorch corpus: {len(CASES)} cases",
        "",
        f"Runs as written: **{len(running)} / {len(in_scope)}** ({100 * len(running) / len(in_scope):.0f}%), "
        f"not counting {len(CASES) - len(in_scope)} cases out of scope "
        "(control flow, randomness, per-element Python).",
    ]
    if all(v is not None for v in verdicts.values()):
        wrong = sorted(i for i, v in verdicts.items() if not v)
        lines.append(
            f"Of those, {len(running) - len(wrong)} agree with PyTorch 2.x "
            f"(value, every leaf's grad, grad_fn){': wrong: ' + ', '.join(wrong) if wrong else ''}."
        )
    else:
        lines.append("(torch is not installed: the cases that run were not checked against it.)")
    lines.append("Running today: " + ", ".join(c.id for c in running) + ".")
    by_family: dict[str, list[str]] = defaultdict(list)
    by_reason: dict[str, list[str]] = defaultdict(list)
    for case_id, message in refused.items():
        by_family[family(message)].append(case_id)
        by_reason[reason(message)].append(case_id)
    lines += ["", "## Refusals by kind", "", *_table(by_family, "first error, names blanked", ids)]
    lines += ["", "## Refusals by first error message", "", *_table(by_reason, "first error", ids)]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", action="store_true", help="list the refused case ids under each reason")
    print(report(ids=parser.parse_args().ids))


if __name__ == "__main__":
    main()
