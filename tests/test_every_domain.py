"""Every registry op through every value domain, on the op's first case (tests/op_cases).

One VJP rule per op runs on five kinds of value, and each reading must agree with the
numbers (torch checks the numbers themselves in test_ops and test_differential):
- numbers: autograd.backward on NumPy arrays (the reference here);
- traced tensors: traced.trace_backward, backward(create_graph=True), read back as numbers;
- batched arrays: two points stacked on a leading axis (batched.forward_points);
- sympy: symbolic.build, whose leaf formula (elementwise ops) is the rule's at the point;
- text: the readable formula (readable.py), evaluated with torch.
An op a domain cannot take yet is in that domain's ratchet (double_backward_gaps.json,
batched_gaps.json, test_readable.OPAQUE) and must still fail there the documented way.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from op_cases import example
from test_readable import OPAQUE, check_formulas
from test_symbolic_rules import DIFFERENTIABLE, ELEMENTWISE, _evaluate, _scalar_point

from gradcli import grad
from gradcli.api import _prepare
from gradcli.autograd import backward, forward
from gradcli.batched import Batched, backward_rows, forward_points
from gradcli.higher import CANNOT_BATCH, CANNOT_TRACE
from gradcli.traced import Traced, trace_backward

HERE = Path(__file__).parent
UNTRACEABLE = set(json.loads((HERE / "double_backward_gaps.json").read_text())["untraceable"])
UNBATCHED = set(json.loads((HERE / "batched_gaps.json").read_text())["points"])


def _close(got, want, what: str) -> None:
    np.testing.assert_allclose(
        np.broadcast_to(got, np.shape(want)), want, rtol=1e-12, atol=1e-14, err_msg=what
    )


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_one_rule_reads_the_same_in_every_domain(name: str) -> None:
    program, at, const = example(name)
    prepared = _prepare(program, at, const, "float64")
    graph, dtype = prepared.graph, prepared.dtype
    values = forward(graph, prepared.arrays, dtype)
    numbers = backward(graph, values, np.ones((), dtype), dtype)
    leaves = [leaf for leaf in graph.leaves if numbers[leaf.index] is not None]

    # traced tensors: the gradient graph's values are the numbers
    if name in UNTRACEABLE:
        with pytest.raises(CANNOT_TRACE):
            trace_backward(graph, values, dtype)
    else:
        tape, traced = trace_backward(graph, values, dtype)
        for leaf in leaves:
            found = traced[leaf.index]
            _close(
                tape.values[found.index] if isinstance(found, Traced) else found,
                numbers[leaf.index],
                leaf.name,
            )

    # batched arrays: the same point twice, stacked, gives the numbers twice
    inputs = {n: Batched(np.stack([v, v])) if n in at else v for n, v in prepared.arrays.items()}
    if name in UNBATCHED:
        with pytest.raises(CANNOT_BATCH):
            stacked = forward_points(graph, inputs, dtype)
            backward_rows(graph, stacked, np.ones(2, dtype), dtype)
    else:
        stacked = forward_points(graph, inputs, dtype)
        rows = backward_rows(graph, stacked, np.ones(2, dtype), dtype)
        for leaf in leaves:
            for row in np.broadcast_to(rows[leaf.index], (2, *leaf.shape)):
                _close(row, numbers[leaf.index], leaf.name)

    # sympy: an elementwise op's formula, at a scalar point, is the rule's number there
    if name in ELEMENTWISE:
        point = {**_scalar_point(at), **_scalar_point(const)}
        scalar = grad(program, _scalar_point(at), _scalar_point(const))
        for leaf, text in scalar.grad_symbolic.items():
            if scalar.grads[leaf] is not None:
                assert text is not None, leaf
                assert _evaluate(text, point) == pytest.approx(float(scalar.grads[leaf]), rel=1e-9, abs=1e-12)

    # text: the readable formula, evaluated with torch, is the gradient
    check_formulas(program, at, const, opaque=name in OPAQUE)
