"""dtype conversions that keep no gradient (.long(), .bool()) and torch's logical ops."""

from __future__ import annotations

import numpy as np

from . import Case, uniform

# Whole numbers, zeros and fractions of both signs: .long() truncates toward zero, .bool() is != 0.
MIXED = np.array([[1.75, -2.5, 0.0], [0.25, -0.75, 3.0]])
CASES = [
    Case("long", "2x3, toward zero", (MIXED,)),
    Case("bool", "2x3, zeros are False", (MIXED,)),
    Case("logical_not", "2x3", (MIXED,)),
    Case("logical_and", "2x3 with 3 (broadcast)", (MIXED, np.array([0.5, 0.0, -1.0]))),
    Case("logical_or", "2x3 with 3", (MIXED, np.array([0.0, 0.0, 2.0]))),
    Case("logical_xor", "2x3", (MIXED, uniform(-1, 1, (2, 3)))),
]
