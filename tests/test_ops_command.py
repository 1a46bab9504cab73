"""`gradcli ops`: generated from the op registry, so it cannot drift from what the engine does."""

from __future__ import annotations

import json

import pytest
from golden import assert_golden
from op_cases import example

from gradcli import grad
from gradcli.ops import COMPOSITES, INTERNAL, OPS, REGISTRY


def test_table_is_pinned_and_fits_80_columns(run):
    result = run("ops")
    assert result.exit_code == 0, result.stderr
    assert "\x1b[" not in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    assert_golden("ops_table.txt", result.stdout)


def test_json_lists_every_registry_op_with_its_fields(run):
    result = run("ops", "--format", "json")
    assert result.exit_code == 0, result.stderr
    records = json.loads(result.stdout)
    assert [r["name"] for r in records] == [op.name for op in OPS] + list(COMPOSITES)
    for record in records:
        if record["composite"]:  # F.normalize, x.float(): made of the ops above
            assert record["derivative"] == COMPOSITES[record["name"]].derivative and not record["grad_fns"]
            continue
        op = REGISTRY[record["name"]]
        assert record["syntax"] == op.syntax
        assert record["grad_fn"] == op.grad_fn
        assert record["derivative"] == op.derivative
        assert record["domain"] == (op.domain or "all reals")
        assert record["grad_fns"][0] == op.grad_fn
        assert record["elementwise"] == op.elementwise and record["reduction"] == op.reduction


def test_table_shows_every_op_and_grad_fn(run):
    table = run("ops").stdout
    for record in json.loads(run("ops", "--format", "json").stdout):
        assert record["name"] in table
        for name in record["grad_fns"]:
            assert name in table


# Programs and the grad_fn PyTorch gives their output node: every one must be listed by `ops`.
USES = [
    ("(x.roll(1) * x).sum()", {"x": [1.0, 2.0, 3.0]}),
    ("x + y", {"x": 1.0, "y": 2.0}),
    ("x - y", {"x": 1.0, "y": 2.0}),
    ("2 - x", {"x": 1.0}),
    ("x * y", {"x": 1.0, "y": 2.0}),
    ("x / y", {"x": 1.0, "y": 2.0}),
    ("2 / x", {"x": 1.0}),
    ("x ** 2", {"x": 1.0}),
    ("x ** y", {"x": 1.0, "y": 2.0}),
    ("2 ** x", {"x": 1.0}),
    ("-x", {"x": 1.0}),
    ("sum(A @ B)", {"A": [[1.0, 2.0], [3.0, 4.0]], "B": [[1.0, 0.0], [0.0, 1.0]]}),
    ("sum(A @ v)", {"A": [[1.0, 2.0], [3.0, 4.0]], "v": [1.0, 2.0]}),
    ("sum(v @ A)", {"A": [[1.0, 2.0], [3.0, 4.0]], "v": [1.0, 2.0]}),
    ("v @ v", {"v": [1.0, 2.0]}),
    ("sum(v)", {"v": [1.0, 2.0]}),
    ("sum(sum(A, 0))", {"A": [[1.0, 2.0], [3.0, 4.0]]}),
    ("mean(v)", {"v": [1.0, 2.0]}),
    ("sum(mean(A, dim=1))", {"A": [[1.0, 2.0], [3.0, 4.0]]}),
    ("sum(t(A))", {"A": [[1.0, 2.0], [3.0, 4.0]]}),
    ("sum(A.T)", {"A": [[1.0, 2.0], [3.0, 4.0]]}),
    ("sum(A[0, 1:])", {"A": [[1.0, 2.0], [3.0, 4.0]]}),
    ("sum(A[[1, 0]])", {"A": [[1.0, 2.0], [3.0, 4.0]]}),
    ("sum(softmax(A, dim=1) * A)", {"A": [[1.0, 2.0], [3.0, 4.0]]}),
    ("sum(log_softmax(A, dim=0))", {"A": [[1.0, 2.0], [3.0, 4.0]]}),
    *[
        (f"{name}(x, y)", {"x": 0.5, "y": 0.25})
        for name in (
            "mse_loss",
            "smooth_l1_loss",
            "huber_loss",
            "binary_cross_entropy",
            "binary_cross_entropy_with_logits",
        )
    ],
    ("nll_loss(v, 1)", {"v": [-1.0, -2.0]}),
    *[(f"{op.name}(x)", {"x": 0.5}) for op in OPS if op.function and op.elementwise and op.arity == 1],
]
INTERNAL_NAMES = {op.name for op in INTERNAL}
# Every op, as its first case in tests/op_cases uses it (consts included).
EXAMPLES = [example(op.name) for op in OPS]


@pytest.mark.parametrize(("program", "at"), USES, ids=[u[0] for u in USES])
def test_every_grad_fn_the_engine_assigns_is_listed(run, program, at):
    listed = {r["name"]: r["grad_fns"] for r in json.loads(run("ops", "--format", "json").stdout)}
    every = {name for names in listed.values() for name in names}
    result = grad(program, at=at)
    for node in result.nodes:
        if node.kind == "op" and node.op in INTERNAL_NAMES:  # v @ A's squeeze: listed under matmul
            assert node.grad_fn in every, f"{program}: {node.grad_fn} not listed"
        elif node.kind == "op":
            assert node.grad_fn in listed[node.op], f"{program}: {node.grad_fn} not listed for {node.op}"


@pytest.mark.parametrize(("program", "at", "const"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_every_grad_fn_of_the_examples_is_listed(run, program, at, const):
    listed = {r["name"]: r["grad_fns"] for r in json.loads(run("ops", "--format", "json").stdout)}
    for node in grad(program, at=at, const=const).nodes:
        if node.kind == "op" and node.requires_grad:  # a comparison or detach has no grad_fn
            assert node.grad_fn in listed[node.op], f"{program}: {node.grad_fn} not listed for {node.op}"


def test_every_op_is_exercised_above():
    used = set()
    for program, at in USES:
        used |= {n.op for n in grad(program, at=at).nodes if n.kind == "op"}
    for program, at, const in EXAMPLES:
        used |= {n.op for n in grad(program, at=at, const=const).nodes if n.kind == "op"}
    # sizes (x.shape[0], len(x)) fold into numbers as torch's Python ints do: never nodes;
    # kernels (ops.KERNELS) are no part of programs; internal records (ops.INTERNAL) are reached
    # through a composite or a rewrite (v @ A's squeeze)
    assert used - INTERNAL_NAMES == {op.name for op in OPS if op.size_of is None}
