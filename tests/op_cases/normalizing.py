"""One-sided clamps (ClampMinBackward0, ClampMaxBackward0): F.normalize is made of clamp_min."""

from __future__ import annotations

import numpy as np

from . import Case, uniform

# Values away from the bound: finite differences must not straddle it.
AWAY = np.array([[0.1, 0.9, -0.6], [1.4, 0.3, -1.2]])
CASES = [
    Case("clamp_min", "bound 0.5", (AWAY,), {"min": 0.5}),
    Case("clamp_min", "bound below all", (uniform(-1, 1, (3,)),), {"min": -2.0}),
    Case("clamp_max", "bound 0.5", (AWAY,), {"max": 0.5}),
]
