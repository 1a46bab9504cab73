"""Cases for the elementwise math family (gradcli/ops/elementwise_math.py), away from kinks:
ties, bounds and integers are checked against torch in tests/test_math_activations.py."""

from __future__ import annotations

import numpy as np

from . import Case, away_from_zero, uniform


def _not_near_integers(shape: tuple[int, ...]) -> np.ndarray:
    """Values whose fractional part is in [0.1, 0.4] or [0.6, 0.9]: rounding stays put under a 1e-6 step."""
    whole = np.floor(uniform(-3, 3, shape))
    fraction = uniform(0.1, 0.4, shape) + np.where(uniform(0, 1, shape) < 0.5, 0.0, 0.5)
    return whole + fraction


CASES = [
    Case("exp2", "2x3", (uniform(-2, 2, (2, 3)),)),
    Case("expm1", "2x3", (uniform(-2, 2, (2, 3)),)),
    Case("expm1", "tiny", (np.array([1e-10, -3e-9, 2e-8]),)),
    Case("log2", "2x3", (uniform(0.2, 4, (2, 3)),)),
    Case("log10", "2x3", (uniform(0.2, 4, (2, 3)),)),
    Case("reciprocal", "2x3", (away_from_zero((2, 3)),)),
    Case("rsqrt", "2x3", (uniform(0.2, 4, (2, 3)),)),
    Case("erf", "2x3", (uniform(-3, 3, (2, 3)),)),
    Case("erf", "tails", (np.array([-6.0, -1e-8, 1e-8, 5.5]),)),
    Case("erfinv", "2x3", (uniform(-0.9, 0.9, (2, 3)),)),
    Case("erfinv", "tails", (np.array([-0.999, -1e-9, 1e-9, 0.99]),)),
    Case("asinh", "2x3", (uniform(-3, 3, (2, 3)),)),
    Case("acosh", "2x3", (uniform(1.2, 4, (2, 3)),)),
    Case("atanh", "2x3", (uniform(-0.9, 0.9, (2, 3)),)),
    Case("sign", "2x3", (away_from_zero((2, 3)),)),
    Case("floor", "2x3", (_not_near_integers((2, 3)),)),
    Case("ceil", "2x3", (_not_near_integers((2, 3)),)),
    Case("trunc", "2x3", (_not_near_integers((2, 3)),)),
    Case("round", "2x3", (_not_near_integers((2, 3)),)),
    Case("round", "decimals=1", (uniform(-3, 3, (2, 3)),), {"decimals": 1}),
    Case("round", "decimals=0", (_not_near_integers((4,)),), {"decimals": 0}),
    Case("atan2", "2x3 with 3 (broadcast)", (uniform(-2, 2, (2, 3)), away_from_zero((3,)))),
    Case("atan2", "every quadrant", (np.array([1.0, 1.0, -1.0, -1.0]), np.array([2.0, -2.0, 2.0, -2.0]))),
    # remainder and fmod away from the jumps (a/b near a whole number): every sign pairing
    Case("remainder", "2x3 with 3 (broadcast)", (np.array([[5.5, -3.25, 7.3], [-4.6, 2.2, -0.7]]), np.array([2.0, -1.5, 3.0]))),
    Case("fmod", "2x3 with 3 (broadcast)", (np.array([[5.5, -3.25, 7.3], [-4.6, 2.2, -0.7]]), np.array([2.0, -1.5, 3.0]))),
    Case("floor_divide", "2x3 with 3 (broadcast)", (np.array([[5.5, -3.25, 7.3], [-4.6, 2.2, -0.7]]), np.array([2.0, -1.5, 3.0]))),
    Case("maximum", "2x3 with 3 (broadcast)", (away_from_zero((2, 3)), away_from_zero((3,)))),
    Case("minimum", "2x3 with 3 (broadcast)", (away_from_zero((2, 3)), away_from_zero((3,)))),
    Case("maximum", "3x1 with 3", (uniform(-2, 2, (3, 1)), uniform(-2, 2, (3,)))),
    Case("minimum", "3x1 with 3", (uniform(-2, 2, (3, 1)), uniform(-2, 2, (3,)))),
    Case("clamp", "min and max", (away_from_zero((2, 3)),), {"min": -0.5, "max": 0.8}),
    Case("clamp", "min only", (away_from_zero((2, 3)),), {"min": 0.0}),
    Case("clamp", "max only", (away_from_zero((2, 3)),), {"max": 0.1}),
    Case("clamp", "min above max", (away_from_zero((4,)),), {"min": 1.0, "max": -1.0}),
    # tensor bounds (torch's clamp.Tensor); a bound left out is an infinite number
    Case("clamp_tensor", "both bounds", (away_from_zero((2, 3)), uniform(-1, 0, (3,)), uniform(0, 1, (2, 3)))),
    Case("clamp_tensor", "min only", (away_from_zero((2, 3)), uniform(-1, 1, (2, 3)), float("inf"))),
    Case("clamp_tensor", "max only", (away_from_zero((4,)), float("-inf"), uniform(-1, 1, (4,)))),
    Case("clamp_tensor", "min above max", (away_from_zero((4,)), uniform(1, 2, (4,)), uniform(-2, -1, (4,)))),
]

CASES += [
    Case("nan_to_num", "finite values pass through", (uniform(-2, 2, (2, 3)),)),
    # nan and infinities are in tests/scripts/tut_shapes_and_cleanup.py (finite differences
    # there are nan) and tests/test_math_activations.py
    Case("nan_to_num", "given replacements", (uniform(-2, 2, (3,)),), {"posinf": 2.0, "neginf": -9.0}),
]
