"""Cases for the activations family (gradcli/ops/activations.py), away from kinks: kinks and
bounds are checked against torch in tests/test_math_activations.py."""

from __future__ import annotations

import numpy as np

from . import Case, away_from_zero, uniform

CASES = [
    Case("leaky_relu", "2x3", (away_from_zero((2, 3)),)),
    Case("leaky_relu", "slope 0.2", (away_from_zero((2, 3)),), {"negative_slope": 0.2}),
    Case("leaky_relu", "slope -1.5", (away_from_zero((4,)),), {"negative_slope": -1.5}),
    Case("elu", "2x3", (away_from_zero((2, 3)),)),
    Case("elu", "alpha 0.5", (away_from_zero((2, 3)),), {"alpha": 0.5}),
    Case("selu", "2x3", (away_from_zero((2, 3)),)),
    Case("gelu", "2x3", (uniform(-4, 4, (2, 3)),)),
    Case("gelu", "tails", (np.array([-9.0, -5.0, 5.0, 9.0]),)),
    Case("gelu", "approximate tanh", (uniform(-4, 4, (2, 3)),), {"approximate": "tanh"}),
    Case("gelu", "approximate none", (uniform(-4, 4, (3,)),), {"approximate": "none"}),
    Case("silu", "2x3", (uniform(-4, 4, (2, 3)),)),
    Case("silu", "tails", (np.array([-40.0, -5.0, 5.0, 40.0]),)),
    Case("hardtanh", "2x3", (uniform(-2, 2, (2, 3)) + 0.05,)),
    Case("hardtanh", "0 to 6", (np.array([-1.0, 0.5, 3.0, 7.0]),), {"min_val": 0.0, "max_val": 6.0}),
    Case("logsigmoid", "2x3", (uniform(-4, 4, (2, 3)),)),
    Case("logsigmoid", "tails", (np.array([-50.0, -20.0, 20.0, 50.0]),)),
    Case("mish", "2x3", (uniform(-4, 4, (2, 3)),)),
    Case("mish", "tails", (np.array([-30.0, -5.0, 5.0, 25.0]),)),
]
