"""The batched interpretation for every op (gradcli.batched), on each registry op's first case:
B one-hot seeds in one sweep give the rows that B separate backward passes give, and B
points stacked on a leading axis give what B separate forward and backward passes give.

An op whose rules use an array call without a batching rule is listed in
tests/batched_gaps.json ("rows": Jacobian rows then run one pass each; "points": --batch
then runs point by point); the lists are ratchets.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from op_cases import example

from gradcli.api import _prepare
from gradcli.autograd import backward, forward
from gradcli.batched import Batched, backward_rows, forward_points
from gradcli.higher import CANNOT_BATCH
from gradcli.ops import OPS

_GAPS = json.loads((Path(__file__).parent / "batched_gaps.json").read_text())
GAPS, POINT_GAPS = set(_GAPS["rows"]), set(_GAPS["points"])


def _inner(name: str) -> tuple[str, dict, dict]:
    program, at, const = example(name)
    return program[len("sum(") : -1], at, const  # the op's own (tensor) output, not its sum


@pytest.mark.parametrize("name", sorted(op.name for op in OPS if op.size_of is None))
def test_batched_rows_equal_one_pass_per_row(name: str) -> None:
    program, at, const = _inner(name)
    prepared = _prepare(program, at, const, "float64")
    graph, dtype = prepared.graph, prepared.dtype
    values = forward(graph, prepared.arrays, dtype)
    out_shape = graph.nodes[graph.output].shape
    size = math.prod(out_shape)
    seeds = np.eye(size, dtype=dtype).reshape((size,) + out_shape)
    if name in GAPS:
        with pytest.raises(CANNOT_BATCH):
            backward_rows(graph, values, seeds, dtype)
        return
    rows = backward_rows(graph, values, seeds, dtype)
    for k in range(size):
        one = backward(graph, values, seeds[k], dtype)
        for leaf in graph.leaves:
            want, got = one[leaf.index], rows[leaf.index]
            if want is None:
                assert got is None or not np.any(got[k]), leaf.name
                continue
            np.testing.assert_allclose(
                np.broadcast_to(got, (size,) + leaf.shape)[k], want, rtol=1e-13, atol=1e-15
            )


@pytest.mark.parametrize("name", sorted(op.name for op in OPS if op.size_of is None))
def test_stacked_points_equal_one_point_at_a_time(name: str) -> None:
    program, at, const = example(name)
    prepared = _prepare(program, at, const, "float64")
    graph, dtype = prepared.graph, prepared.dtype
    points = [prepared.arrays, {n: v * 1.1 if n in at else v for n, v in prepared.arrays.items()}]
    inputs = {
        n: Batched(np.stack([p[n] for p in points])) if n in at else v for n, v in prepared.arrays.items()
    }
    if name in POINT_GAPS:
        with pytest.raises(CANNOT_BATCH):
            values = forward_points(graph, inputs, dtype)
            backward_rows(graph, values, np.ones(len(points), dtype), dtype)
        return
    values = forward_points(graph, inputs, dtype)
    adjoints = backward_rows(graph, values, np.ones(len(points), dtype), dtype)
    for i, point in enumerate(points):
        one = forward(graph, point, dtype)
        alone = backward(graph, one, np.ones((), dtype), dtype)
        output = values[graph.output]
        np.testing.assert_allclose(
            output.value[i] if isinstance(output, Batched) else output, one[graph.output]
        )
        for leaf in graph.leaves:
            if alone[leaf.index] is not None:
                got = np.broadcast_to(adjoints[leaf.index], (len(points),) + leaf.shape)[i]
                np.testing.assert_allclose(got, alone[leaf.index], rtol=1e-13, atol=1e-15)


def test_gaps_name_registry_ops() -> None:
    assert {op.name for op in OPS} >= GAPS | POINT_GAPS
