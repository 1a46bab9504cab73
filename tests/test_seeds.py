"""Every worked example of the seed tutorials (../shared/seeds/), reproduced by one gradcli command.

The tutorials print inputs and results rounded to 4 decimals, so a printed result is
checked against the range gradcli gives over the printed input's rounding interval
(x - 0.00005 .. x + 0.00005; every function here is monotone in each element there),
widened by half a unit of the printed last digit. The seed text lost some minus
signs; where a printed value pins the sign (seed 000's out = 5.6434 needs
x[1][0] = -1.5296, out = 7.7630 needs x[0][0] = -0.7452) the signed input is used,
and gradients there are 6*x**2, which the sign does not change. Old torch names
(MulBackward, MeanBackward1, "invalid gradient at index 0") are today's
MulBackward0, MeanBackward0 and "Mismatch in shape", checked against torch 2.13.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from oracle import close, torch, torch_grads

from gradcli import grad

HALF_UNIT = 0.00005  # half a unit in the 4th decimal: the seeds' rounding


def assert_printed(printed, source: str, at: dict, pick, gradient=None) -> None:
    """`printed` lies within gradcli's range over the inputs' rounding interval, +- rounding."""
    low = {n: np.asarray(v, dtype=float) - HALF_UNIT for n, v in at.items()}
    high = {n: np.asarray(v, dtype=float) + HALF_UNIT for n, v in at.items()}
    ends = [np.asarray(pick(grad(source, at=point, gradient=gradient))) for point in (low, high)]
    lowest, highest = np.minimum(*ends) - HALF_UNIT, np.maximum(*ends) + HALF_UNIT
    printed = np.asarray(printed, dtype=float)
    assert np.all((lowest <= printed) & (printed <= highest)), (printed, lowest, highest)


def arg(name: str, value) -> str:
    return f"{name}={json.dumps(value)}"


# ------------------------------------------------------------------ seed 000: understanding backward()


def test_seed000_scalar_chain_y_2x_z_y_cubed(run_json) -> None:
    program, x = "y = 2 * x; z = y ** 3", [[0.6955]]
    doc = run_json("grad", program, "--at", arg("x", x))
    nodes = {n["name"]: n for n in doc["nodes"]}
    assert nodes["y"]["grad_fn"] == "MulBackward0" and nodes["z"]["grad_fn"] == "PowBackward0"
    assert not nodes["y"]["is_leaf"] and not nodes["z"]["is_leaf"]  # y.grad, z.grad are None
    assert "y" not in doc["leaves"] and "z" not in doc["leaves"]
    assert doc["leaves"]["x"]["grad_symbolic"] == "24*x**2"  # dz = 24 x**2 dx
    assert_printed([[1.3911]], program, {"x": x}, lambda r: r.nodes[1].value)
    assert_printed([[2.6918]], program, {"x": x}, lambda r: r.value)
    assert_printed([[11.6105]], program, {"x": x}, lambda r: r.grads["x"])
    assert close(doc["leaves"]["x"]["grad"], torch_grads(program, {"x": x})["x"])


def test_seed000_upstream_gradient_scales_the_grad(run_json) -> None:
    """z is 1x1: backward() needs no gradient; 1, 0.1 and 0.5 scale x.grad (zeroed between)."""
    program, x = "y = 2 * x; z = y ** 3", [[0.7207]]
    implicit = run_json("grad", program, "--at", arg("x", x))
    assert_printed([[12.4668]], program, {"x": x}, lambda r: r.grads["x"])
    args = ["grad", program, "--at", arg("x", x), "--retain-graph", "--zero-grad"]
    for g in ([[1]], [[0.1]], [[0.5]]):
        args += ["--gradient", json.dumps(g)]
    doc = run_json(*args)
    after = [p["grads"]["x"] for p in doc["passes"]]
    assert after[0] == implicit["leaves"]["x"]["grad"]
    for printed, scale, got in zip(([[12.4668]], [[1.2467]], [[6.2334]]), (1.0, 0.1, 0.5), after):
        assert_printed(printed, program, {"x": x}, lambda r, s=scale: s * r.grads["x"])
        assert close(got, scale * np.asarray(after[0]), rtol=1e-15)


MATRIX_X = [[2.5212, 1.2730], [0.0366, 0.0750]]
MASKS = ([[1, 1], [1, 1]], [[0, 1], [0, 1]], [[1, 1], [0, 0]])
MASKED_GRADS = (
    [[152.5527, 38.8946], [0.0322, 0.1349]],
    [[0.0, 38.8946], [0.0, 0.1349]],
    [[152.5527, 38.8946], [0.0, 0.0]],
)


def test_seed000_masks_pick_columns_and_rows(run_json) -> None:
    program = "y = 2 * x; z = y ** 3"
    args = ["grad", program, "--at", arg("x", MATRIX_X), "--retain-graph", "--zero-grad"]
    for mask in MASKS:
        args += ["--gradient", json.dumps(mask)]
    doc = run_json(*args)
    assert doc["output"]["shape"] == [2, 2]  # z shape: torch.Size([2, 2])
    for record, mask, printed in zip(doc["passes"], MASKS, MASKED_GRADS):
        assert record["gradient"] == mask
        assert_printed(printed, program, {"x": MATRIX_X}, lambda r: r.grads["x"], gradient=mask)
        assert close(record["grads"]["x"], torch_grads(program, {"x": MATRIX_X}, gradient=mask)["x"])


MEAN_PROGRAM = "y = 2 * x; z = y ** 3; out = z.mean()"


def test_seed000_mean_of_cubes_gives_a_scalar_and_6x2(run_json) -> None:
    x = [[1.8528, 0.2083], [-1.5296, 0.3136]]
    doc = run_json("grad", MEAN_PROGRAM, "--at", arg("x", x))
    assert doc["output"]["name"] == "out" and doc["output"]["shape"] == []
    assert doc["output"]["grad_fn"] == "MeanBackward0"  # the seed's torch 0.4 printed MeanBackward1
    assert_printed(5.6434, MEAN_PROGRAM, {"x": x}, lambda r: r.value)
    assert_printed([[20.5970, 0.2604], [14.0375, 0.5903]], MEAN_PROGRAM, {"x": x}, lambda r: r.grads["x"])
    assert close(doc["leaves"]["x"]["grad"], torch_grads(MEAN_PROGRAM, {"x": x})["x"])


def test_seed000_gradient_for_a_scalar_output_is_refused(run) -> None:
    x = torch.tensor([[1.8528, 0.2083], [-1.5296, 0.3136]], dtype=torch.float64, requires_grad=True)
    out = ((2 * x) ** 3).mean()
    with pytest.raises(RuntimeError) as torch_error:
        out.backward(torch.ones(2, 2, dtype=torch.float64))
    result = run(
        "grad", MEAN_PROGRAM, "--at", "x=[[1.8528,0.2083],[-1.5296,0.3136]]", "--gradient", "[[1,1],[1,1]]"
    )
    assert result.exit_code == 1 and result.stderr.startswith("error: ")
    assert str(torch_error.value) in result.stderr
    assert "torch.Size([2, 2])" in result.stderr and "torch.Size([])" in result.stderr


def test_seed000_second_backward_without_retain_graph_fails(run, run_json) -> None:
    x = [[-0.7452, 1.5727], [0.1702, 0.7374]]
    doc = run_json("grad", MEAN_PROGRAM, "--at", arg("x", x))
    assert_printed(7.7630, MEAN_PROGRAM, {"x": x}, lambda r: r.value)
    assert_printed([[3.3323, 14.8394], [0.1738, 3.2623]], MEAN_PROGRAM, {"x": x}, lambda r: r.grads["x"])
    assert doc["passes"][0]["index"] == 1
    failed = run("grad", MEAN_PROGRAM, "--at", arg("x", x), "--passes", "2", "--zero-grad")
    assert failed.exit_code == 1
    assert "Trying to backward through the graph a second time" in failed.stderr
    assert "--retain-graph" in failed.stderr
    retained = run_json(
        "grad", MEAN_PROGRAM, "--at", arg("x", x), "--passes", "2", "--zero-grad", "--retain-graph"
    )
    assert retained["leaves"]["x"]["grad"] == doc["leaves"]["x"]["grad"]


# ------------------------------------------------------------------ seed 001: computing gradients


def test_seed001_quadratic_plus_constant_gives_8(run_json) -> None:
    doc = run_json("grad", "y = 2 * x**2 + 3", "--at", "x=2.0")
    assert doc["output"]["value"] == 11.0 and doc["leaves"]["x"]["grad"] == 8.0  # dy/dx = 4x
    assert doc["leaves"]["x"]["grad_symbolic"] == "4*x"


def test_seed001_linear_layer_weights_and_bias(run_json) -> None:
    program = "y = matmul(X, W) + b; loss = sum(y**2)"
    at = {"W": [[1.0, 2.0], [3.0, 4.0]], "b": [0.5, 1.0]}
    const = {"X": [[1.0, 0.5], [0.2, 0.8]]}
    doc = run_json(
        "grad", program, "--at", arg("W", at["W"]), "--at", arg("b", at["b"]), "--const", arg("X", const["X"])
    )
    want = torch_grads(program, at, const)
    assert close(doc["leaves"]["W"]["grad"], want["W"]) and close(doc["leaves"]["b"]["grad"], want["b"])
    # By hand: y = [[3, 5], [3.1, 4.6]], loss = sum(y**2), dW = X.T @ 2y, db = sum over rows of 2y.
    assert close(doc["output"]["value"], 9 + 25 + 3.1**2 + 4.6**2)
    assert close(doc["leaves"]["W"]["grad"], [[7.24, 11.84], [7.96, 12.36]])
    assert close(doc["leaves"]["b"]["grad"], [12.2, 19.2])
    assert "X" not in doc["leaves"]


def test_seed001_accumulation_6_then_27_makes_33(run_json) -> None:
    """x**2 then x**3 at x = 3: 6 and 27; without zero_() in between x.grad is 33."""
    assert run_json("grad", "y = x**2", "--at", "x=3.0")["leaves"]["x"]["grad"] == 6.0
    assert run_json("grad", "y = x**3", "--at", "x=3.0")["leaves"]["x"]["grad"] == 27.0
    x = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    (x**2).backward()
    (x**3).backward()
    # Two graphs accumulating into one leaf are one graph with a sum: the gradients add.
    both = run_json("grad", "y = x**2; z = x**3; total = y + z", "--at", "x=3.0")
    assert both["leaves"]["x"]["grad"] == float(x.grad) == 33.0


# ------------------------------------------------------------------ seed 002: how to use backward()


def test_seed002_three_x_squared_at_2_gives_12(run) -> None:
    result = run("grad", "y = 3 * x ** 2", "--at", "x=2.0", "--format", "plain")
    assert result.exit_code == 0 and result.stdout == "x\t12.0\n"


def test_seed002_non_scalar_needs_a_gradient_then_gives_2_2_2(run, run_json) -> None:
    failed = run("grad", "y = x * 2", "--at", "x=[1.0, 2.0, 3.0]")
    assert failed.exit_code == 1
    assert "grad can be implicitly created only for scalar outputs" in failed.stderr
    doc = run_json("grad", "y = x * 2", "--at", "x=[1.0, 2.0, 3.0]", "--gradient", "[1.0, 1.0, 1.0]")
    assert doc["leaves"]["x"]["grad"] == [2.0, 2.0, 2.0]
