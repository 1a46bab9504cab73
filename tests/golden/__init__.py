"""Golden files: pinned output of the picture and text views.

Set GRADCLI_REGEN_GOLDEN=1 to rewrite them from the current output, then review the
diff (`git diff tests/golden`) before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN_DIR = Path(__file__).parent
REGENERATE = os.environ.get("GRADCLI_REGEN_GOLDEN") == "1"


def assert_golden(name: str, actual: str) -> None:
    """Compare `actual` with tests/golden/NAME, or rewrite it when regenerating."""
    path = GOLDEN_DIR / name
    if REGENERATE:
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"missing golden file {path}; run with GRADCLI_REGEN_GOLDEN=1 to create it"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, (
        f"output differs from {path}; if the change is intended, regenerate with GRADCLI_REGEN_GOLDEN=1"
    )
