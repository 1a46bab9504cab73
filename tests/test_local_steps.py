"""The table's chain-rule steps (`adj_h * (t2 > 0)`) and written forms (`relu(t2)`).

Each step is the consumer's VJP rule as it ran on the tape of formulas, written in
PyTorch's vocabulary; evaluated with torch on the run's own node values and adjoints it
must give the node's numeric adjoint, so what the table prints is what backward() did.
(The test evaluates gradcli's output with torch's names; gradcli never evaluates text.)
"""

from __future__ import annotations

import numpy as np
import pytest
from formula_eval import evaluate
from seed_programs import LINEAR, MEAN

from gradcli import grad
from gradcli.local_steps import written_form
from gradcli.ops import OPS, REGISTRY
from gradcli.parse import parse_program
from gradcli.program import Apply


def check_steps(program: str, at: dict, const: dict | None = None, gradient=None) -> int:
    """Every node's step, evaluated, equals its adjoint; returns how many steps were checked."""
    result = grad(program, at=at, const=const, gradient=gradient)
    env = {n.name: n.value for n in result.nodes}
    env.update({f"adj_{n.name}": n.adjoint for n in result.nodes if n.adjoint is not None})
    if gradient is not None:
        env["gradient"] = np.asarray(gradient, dtype=np.float64)
    checked = 0
    for node in result.nodes:
        if node.adjoint is None:
            assert node.adjoint_local is None, node.name
            continue
        assert node.adjoint_local is not None, node.name
        got = evaluate(node.adjoint_local, env)
        assert got.shape in (node.shape, ()), (node.adjoint_local, got.shape, node.shape)
        np.testing.assert_allclose(
            np.broadcast_to(got, node.shape), node.adjoint, rtol=1e-12, atol=1e-12, err_msg=node.adjoint_local
        )
        checked += 1
    return checked


RNG = np.random.default_rng(7)
A = RNG.uniform(0.2, 0.9, (2, 3)).tolist()  # inside every op's domain (asin, log, sqrt ...)
B = RNG.uniform(0.2, 0.9, (3,)).tolist()
C = RNG.uniform(-1, 1, (2, 3)).tolist()


@pytest.mark.parametrize(
    "op", [op for op in OPS if op.elementwise and op.grad_fn != "NotImplemented"], ids=lambda op: op.name
)
def test_elementwise_steps_give_the_numeric_adjoint(op):
    applied = written_form(op, ["a", "b"][: op.arity], {})
    # b broadcasts against a, so the unbroadcast sum is in the step too; c weights each element.
    program = f"y = {applied}; out = sum(y * c)"
    at = {"a": A, "b": B} if op.arity == 2 else {"a": A}
    assert check_steps(program, at, {"c": C}) == len(at) + 3


@pytest.mark.parametrize(
    ("program", "at"),
    [
        ("sum(matmul(a, b) * c)", {"a": A, "b": RNG.uniform(size=(3, 3)).tolist()}),
        ("sum(matmul(a, b) * 2)", {"a": A, "b": B}),
        ("sum(matmul(b, a.T) * 2)", {"a": A, "b": B}),
        ("matmul(b, b)", {"b": B}),
        ("sum(t(a) * a.T)", {"a": A}),
        ("sum(sum(a, 1) * sum(a, 1))", {"a": A}),
        ("sum(mean(a, dim=0) * b)", {"a": A, "b": B}),
        ("sum(mean(a, 1, True) * a)", {"a": A}),
        ("mean(a) + sum(a, dim=-1, keepdim=True).mean()", {"a": A}),
        ("y = a ** b; z = 2 ** b; sum(y * z + b ** 2 + a ** 1)", {"a": A, "b": B}),
        ("x = -a; sum(x - 3 / a + a / 2 - 1 * a)", {"a": A}),
    ],
)
def test_tensor_and_number_steps_give_the_numeric_adjoint(program, at):
    assert check_steps(program, at, {"c": RNG.uniform(size=(2, 3)).tolist()} if "c" in program else None) >= 2


def test_steps_of_the_seeds_and_a_network():
    mlp = "h = relu(X @ W1 + b1); out = sigmoid(h @ w2); loss = mean((out - 1)**2)"
    at = {"W1": [[0.1, -0.2], [0.3, 0.4]], "b1": [0.1, -0.1], "w2": [0.5, -0.3]}
    assert check_steps(mlp, at, {"X": [[1.0, 2], [3, 4], [5, 6]]}) == 11
    assert check_steps(MEAN[0], {"x": [[1.8528, 0.2083], [1.5296, 0.3136]]}) == 4
    assert check_steps(LINEAR[0], {"W": [[1, 2], [3, 4]], "b": [0.5, 1]}, {"X": [[1, 0.5], [0.2, 0.8]]}) == 6
    assert check_steps("y = x * 2", {"x": [1, 2, 3]}, gradient=[1.0, 0.5, 2.0]) == 2


def test_the_steps_read_as_a_learner_writes_them():
    mlp = "h = relu(X @ W1 + b1); out = sigmoid(h @ w2); loss = mean((out - 1)**2)"
    at = {"W1": [[0.1, -0.2], [0.3, 0.4]], "b1": [0.1, -0.1], "w2": [0.5, -0.3]}
    nodes = {n.name: n for n in grad(mlp, at=at, const={"X": [[1.0, 2], [3, 4], [5, 6]]}).nodes}
    assert nodes["t2"].adjoint_local == "adj_h*(h > 0)"  # relu's rule reads its result, as torch's
    assert nodes["W1"].adjoint_local == "X.T @ adj_t1"
    assert nodes["t3"].adjoint_local == "adj_out*out*(1 - out)"
    assert nodes["b1"].adjoint_local == "adj_t2.sum(0)"
    assert nodes["t4"].adjoint_local == "2*adj_t5*t4"
    assert nodes["loss"].adjoint_local == "1"
    assert nodes["X"].adjoint_local is None
    assert [nodes[n].written for n in ("h", "t1", "t5", "loss")] == [
        "relu(t2)",
        "X @ W1",
        "t4**2",
        "mean(t5)",
    ]
    shared = {n.name: n for n in grad("y = x * x + sin(x)", at={"x": 0.5}).nodes}
    assert shared["x"].adjoint_local == "adj_t1*x + adj_t1*x + adj_t2*cos(x)"


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_every_written_form_parses_back_to_its_op(op):
    operands = ["p", "q", "r", *(f"r{i}" for i in range(1, op.arity))][: op.arity]  # cat8 takes 8
    attrs = {param.name: param.default for param in op.params}
    if op.reduction:
        attrs = {"dim": 0, "keepdim": True}
    if "key" in attrs:  # advanced indexing: a literal list, or the index tensor q
        attrs["key"] = (("list", (1, 0)),) if op.arity == 1 else (("tensor", 0),)
    text = written_form(op, operands, attrs)
    root = parse_program(text).statements[-1].expr
    assert isinstance(root, Apply) and root.op == op.name, text
    assert [a.name for a in root.args] == operands
    if op.params:
        assert dict(root.attrs) == attrs
    assert REGISTRY[root.op] is op
