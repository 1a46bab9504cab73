"""The batched interpretation for every op: B one-hot seeds in one sweep give the rows that
B separate backward passes give (gradcli.batched), for each registry op's first case.

An op whose VJP uses an array call without a batching rule is listed in
tests/batched_gaps.json (its Jacobian rows then run one pass each); the list is a ratchet.
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
from gradcli.batched import Unbatchable, backward_rows
from gradcli.ops import OPS

GAPS = set(json.loads((Path(__file__).parent / "batched_gaps.json").read_text()))


def _inner(name: str) -> tuple[str, dict, dict]:
    program, at, const = example(name)
    return program[len("sum(") : -1], at, const  # the op's own (tensor) output, not its sum


@pytest.mark.parametrize("name", sorted(op.name for op in OPS))
def test_batched_rows_equal_one_pass_per_row(name: str) -> None:
    program, at, const = _inner(name)
    prepared = _prepare(program, at, const, "float64")
    graph, dtype = prepared.graph, prepared.dtype
    values = forward(graph, prepared.arrays, dtype)
    out_shape = graph.nodes[graph.output].shape
    size = math.prod(out_shape)
    seeds = np.eye(size, dtype=dtype).reshape((size,) + out_shape)
    if name in GAPS:
        with pytest.raises(Unbatchable):
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


def test_gaps_name_registry_ops() -> None:
    assert {op.name for op in OPS} >= GAPS
