"""Acceptance tests of `gradcli grad`: the seed tutorials' examples, checked against PyTorch."""

from __future__ import annotations

import json

import numpy as np
import pytest
from oracle import close, run_torch, torch, torch_grads

SEED_X = "[[1.8528,0.2083],[1.5296,0.3136]]"


def test_cube_of_double_at_two_gives_96_and_24x2(run_json, run):
    doc = run_json("grad", "(2*x)**3", "--at", "x=2")
    assert doc["leaves"]["x"]["grad"] == torch_grads("(2*x)**3", {"x": 2.0})["x"] == 96.0
    assert doc["leaves"]["x"]["grad_symbolic"] == "24*x**2"
    assert doc["output"] == {"name": "t2", "shape": [], "value": 64.0, "grad_fn": "PowBackward0"}
    ops = [(n["name"], n["grad_fn"]) for n in doc["nodes"]]
    assert ops == [("x", None), ("t1", "MulBackward0"), ("t2", "PowBackward0")]
    table = run("grad", "(2*x)**3", "--at", "x=2")
    assert table.exit_code == 0
    assert "MulBackward0" in table.stdout and "PowBackward0" in table.stdout and "24*x**2" in table.stdout


def test_without_a_point_prints_the_symbolic_gradient(run):
    result = run("grad", "(2*x)**3", "--format", "plain")
    assert result.exit_code == 0
    assert result.stdout == "x\t24*x**2\n"
    table = run("grad", "(2*x)**3")
    assert "24*x**2" in table.stdout and "value" not in table.stdout


def test_named_statements_keep_their_names_and_mean_matches_torch(run_json):
    program = "y = 2*x; z = y**3; out = z.mean()"
    doc = run_json("grad", program, "--at", f"x={SEED_X}")
    assert [n["name"] for n in doc["nodes"]] == ["x", "y", "z", "out"]
    run_t = run_torch(program, {"x": np.array(eval_json(SEED_X))})
    run_t.output.backward()
    for node in doc["nodes"][1:]:
        tensor = run_t.tensors[node["name"]]
        assert node["grad_fn"] == tensor.grad_fn.name()
        assert close(node["value"], tensor.detach().numpy())
    assert close(doc["leaves"]["x"]["grad"], run_t.leaves["x"].grad.numpy())
    assert np.shape(doc["leaves"]["x"]["grad"]) == (2, 2)
    # The seed printed 20.5970, 0.2604, 14.0375, 0.5903 from rounded inputs.
    assert close(doc["leaves"]["x"]["grad"], [[20.5970, 0.2604], [14.0375, 0.5903]], rtol=1e-3)


def test_seed_out_value_with_its_lost_minus_sign():
    # The seed's text lost minus signs; out = 5.6434 holds with x[1][0] = -1.5296.
    from gradcli import grad

    r = grad("y = 2*x; z = y**3; out = z.mean()", at={"x": [[1.8528, 0.2083], [-1.5296, 0.3136]]})
    assert abs(float(r.value) - 5.6434) < 1e-3


WALKTHROUGH_X = "[[2.5212,1.2730],[0.0366,0.0750]]"
MASKS = ["[[1,1],[1,1]]", "[[0,1],[0,1]]", "[[1,1],[0,0]]"]


def _torch_passes(zero_grad: bool) -> list[np.ndarray]:
    x = torch.tensor(eval_json(WALKTHROUGH_X), dtype=torch.float64, requires_grad=True)
    z = (2 * x) ** 3
    after = []
    for i, mask in enumerate(MASKS):
        if zero_grad and i:
            x.grad.zero_()
        z.backward(torch.tensor(eval_json(mask), dtype=torch.float64), retain_graph=True)
        after.append(x.grad.numpy().copy())
    return after


@pytest.mark.parametrize("zero_grad", [True, False])
def test_upstream_gradient_walkthrough_masks_columns_and_rows(run_json, zero_grad):
    args = ["grad", "y = 2*x; z = y**3", "--at", f"x={WALKTHROUGH_X}", "--retain-graph"]
    for mask in MASKS:
        args += ["--gradient", mask]
    doc = run_json(*args, *(["--zero-grad"] if zero_grad else []))
    expected = _torch_passes(zero_grad)
    assert [p["index"] for p in doc["passes"]] == [1, 2, 3]
    for record, want, mask in zip(doc["passes"], expected, MASKS):
        assert record["gradient"] == eval_json(mask)
        assert close(record["grads"]["x"], want)
    if zero_grad:  # second column only, then first row only, as in the seed
        assert doc["passes"][1]["grads"]["x"][0][0] == 0 and doc["passes"][1]["grads"]["x"][1][0] == 0
        assert doc["passes"][2]["grads"]["x"][1] == [0.0, 0.0]
        assert close(
            doc["passes"][0]["grads"]["x"], [[152.5527, 38.8946], [0.0322, 0.1349]], rtol=1e-3, atol=1e-3
        )


def test_upstream_gradient_table_shows_one_row_per_pass(run):
    args = ["grad", "y = 2*x; z = y**3", "--at", f"x={WALKTHROUGH_X}", "--retain-graph", "--zero-grad"]
    for mask in MASKS:
        args += ["--gradient", mask]
    result = run(*args)
    assert result.exit_code == 0
    passes = result.stdout.split("Passes")[1].splitlines()
    rows = [line.split() for line in passes if line.strip()[:1].isdigit()]
    assert [row[0] for row in rows] == ["1", "2", "3"]  # one line per pass: gradient and x.grad whole
    assert [" ".join(row[1:5]) for row in rows] == [
        "[[1, 1], [1, 1]]",
        "[[0, 1], [0, 1]]",
        "[[1, 1], [0, 0]]",
    ]


def test_second_pass_without_retain_graph_fails_like_torch(run):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    z = (2 * x) ** 3
    z.backward(torch.ones(2, 2, dtype=torch.float64))
    with pytest.raises(RuntimeError) as torch_error:
        z.backward(torch.ones(2, 2, dtype=torch.float64))
    result = run(
        "grad", "y = 2*x; z = y**3", "--at", "x=[[1,2],[3,4]]", "--gradient", MASKS[0], "--gradient", MASKS[1]
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ")
    assert str(torch_error.value) in result.stderr
    assert "Trying to backward through the graph a second time" in result.stderr
    assert result.stderr.count("\n") == 1


def test_linear_layer_of_seed_001_matches_torch_and_const_gets_no_grad(run_json):
    program = "y = matmul(X, W) + b; loss = sum(y**2)"
    at = {"W": [[1, 2], [3, 4]], "b": [0.5, 1]}
    const = {"X": [[1, 0.5], [0.2, 0.8]]}
    doc = run_json(
        "grad", program, "--at", "W=[[1,2],[3,4]]", "--at", "b=[0.5,1]", "--const", "X=[[1,0.5],[0.2,0.8]]"
    )
    want = torch_grads(program, at, const)
    assert close(doc["leaves"]["W"]["grad"], want["W"])
    assert close(doc["leaves"]["b"]["grad"], want["b"])
    assert "X" not in doc["leaves"] and doc["consts"]["X"]["value"] == const["X"]
    grad_fns = {n["name"]: n["grad_fn"] for n in doc["nodes"]}
    assert grad_fns["loss"] == "SumBackward0" and grad_fns["y"] == "AddBackward0"
    assert grad_fns["X"] is None


def test_non_scalar_output_needs_a_gradient_and_the_hint_fixes_it(run, run_json):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError) as torch_error:
        (x * 2).backward()
    result = run("grad", "y = x * 2", "--at", "x=[1,2,3]")
    assert result.exit_code == 1
    assert str(torch_error.value) in result.stderr
    assert "--gradient" in result.stderr and "[1, 1, 1]" in result.stderr
    doc = run_json("grad", "y = x * 2", "--at", "x=[1,2,3]", "--gradient", "[1,1,1]")
    assert doc["leaves"]["x"]["grad"] == [2.0, 2.0, 2.0]


def test_gradient_of_wrong_shape_names_both_shapes(run):
    result = run("grad", "2*x", "--at", "x=[[1,2],[3,4]]", "--gradient", "[1,1,1]")
    assert result.exit_code == 1
    assert "Mismatch in shape" in result.stderr
    assert "torch.Size([3])" in result.stderr and "torch.Size([2, 2])" in result.stderr


def test_nothing_requires_grad_fails_like_torch(run):
    result = run("grad", "2*c", "--const", "c=3")
    assert result.exit_code == 1
    assert "element 0 of tensors does not require grad and does not have a grad_fn" in result.stderr


def test_passes_accumulate_27_54_81(run_json, run):
    doc = run_json("grad", "x**3", "--at", "x=3", "--passes", "3", "--retain-graph")
    assert [p["grads"]["x"] for p in doc["passes"]] == [27.0, 54.0, 81.0]
    assert doc["leaves"]["x"]["grad"] == 81.0
    table = run("grad", "x**3", "--at", "x=3", "--passes", "3", "--retain-graph").stdout
    assert all(v in table for v in ("27", "54", "81"))


def test_add_only_graph_can_backward_twice_without_retain_graph(run_json):
    # PyTorch frees only saved tensors; AddBackward0 and SumBackward0 save none.
    doc = run_json("grad", "sum(x + 1)", "--at", "x=[1,2]", "--passes", "2")
    assert doc["leaves"]["x"]["grad"] == [2.0, 2.0]


def test_json_has_every_spec_key_and_is_strict(run):
    result = run("grad", "y = 2*x; z = y**3", "--at", "x=2", "--format", "json")
    from conftest import strict_loads

    doc = strict_loads(result.stdout)
    assert set(doc) >= {"expression", "dtype", "output", "leaves", "consts", "nodes", "passes"}
    assert set(doc["output"]) >= {"name", "shape", "value", "grad_fn"}
    assert set(doc["leaves"]["x"]) >= {"shape", "value", "requires_grad", "grad", "grad_symbolic"}
    assert doc["leaves"]["x"]["grad_readable"] == ["x.grad = 6*y**2"]  # in the program's own name y
    y = doc["nodes"][1]
    assert y == {
        "name": "y",
        "op": "mul",
        "grad_fn": "MulBackward0",
        "inputs": ["x"],
        "shape": [],
        "value": 4.0,
        "symbolic": "2*x",
        "adjoint": 48.0,
        "adjoint_symbolic": "3*y**2",
        "adjoint_local": "3*adj_z*y**2",
        "is_leaf": False,
        "requires_grad": True,
    }
    assert doc["passes"] == [{"index": 1, "gradient": 1.0, "grads": {"x": 96.0}}]


def test_non_finite_numbers_are_strings_in_json(run):
    result = run(
        "grad",
        "log(x) + 0*y",
        "--at",
        "x=[0, 1]",
        "--at",
        "y=[1, 1]",
        "--gradient",
        "[1,1]",
        "--format",
        "json",
    )
    assert result.exit_code == 0
    assert "NaN" not in result.stdout and "Infinity" not in result.stdout
    from conftest import strict_loads

    doc = strict_loads(result.stdout)
    assert doc["output"]["value"][0] == "-inf" and doc["leaves"]["x"]["grad"][0] == "inf"


def test_plain_format_prints_name_tab_grad(run):
    assert run("grad", "(2*x)**3", "--at", "x=2", "--format", "plain").stdout == "x\t96.0\n"
    tensor = run("grad", "sum(x*x)", "--at", "x=[1,2]", "--format", "plain").stdout
    assert tensor == "x\t[2.0,4.0]\n"


def test_program_from_stdin(run):
    result = run("grad", "-", "--at", "x=2", "--format", "plain", input="(2*x)**3\n")
    assert result.exit_code == 0 and result.stdout == "x\t96.0\n"


def test_float32_matches_torch_default_precision(run_json):
    doc = run_json("grad", "sin(x)*exp(x)", "--at", "x=0.1", "--dtype", "float32")
    want = torch_grads("sin(x)*exp(x)", {"x": 0.1}, dtype=torch.float32)["x"]
    assert doc["dtype"] == "float32"
    assert np.float32(doc["leaves"]["x"]["grad"]) == want


def test_api_gives_the_same_numbers_as_the_cli(run_json):
    from gradcli import grad

    r = grad("(2*x)**3", at={"x": 2.0})
    doc = run_json("grad", "(2*x)**3", "--at", "x=2")
    assert float(r.value) == doc["output"]["value"] == 64.0
    assert isinstance(r.grads["x"], np.ndarray) and r.grads["x"].shape == ()
    assert float(r.grads["x"]) == doc["leaves"]["x"]["grad"]
    assert [n.name for n in r.nodes] == [n["name"] for n in doc["nodes"]]
    from conftest import strict_loads

    assert strict_loads(r.to_json()) == doc


def eval_json(text: str):
    import json

    return json.loads(text)


def test_a_long_program_table_is_summarised(run):
    program = "\n".join(["y0 = x"] + [f"y{i} = y{i - 1} * 1.001" for i in range(1, 400)])
    result = run("grad", "-", "--at", "x=1", "--no-symbolic", input=program)
    assert result.exit_code == 0
    assert "... 200 more nodes" in result.stdout and "y399 (out)" in result.stdout
    assert "y150 " not in result.stdout


@pytest.mark.parametrize(
    ("program", "fragment"),
    [
        ("torch.sinn(x)", "unknown function 'torch.sinn' (hint: did you mean sin?"),
        ("np.expp(x) + 1", "unknown function 'np.expp'"),
        ("ln(x)", "did you mean log?"),
        ("sinn(x)", "did you mean sin?"),
        ("x.sinn()", "unknown method '.sinn()'"),
        ("torch.nn.functionl.relu(x)", "unknown module 'torch.nn.functionl'"),
    ],
)
def test_habits_from_other_tools_get_a_pointed_hint(run, program, fragment):
    result = run("grad", program, "--at", "x=1")
    assert result.exit_code == 1 and fragment in result.stderr and result.stderr.count("\n") == 1


def test_api_grads_stay_numpy_arrays_over_several_passes():
    from gradcli import grad

    for r in (
        grad("x**3", at={"x": 3}, passes=2, retain_graph=True),
        grad("x**3", at={"x": 3}, gradients=[1, 2], retain_graph=True),
    ):
        assert isinstance(r.grads["x"], np.ndarray) and r.grads["x"].shape == ()


def test_option_clashes_are_usage_errors(run):
    assert run("grad", "x**2", "--at", "x=2", "--order", "2", "--passes", "2").exit_code == 2
    assert run("grad", "x**2", "--batch", "-", "--format", "plain", input="").exit_code == 2
    unquoted = run("grad", "sum(x)", "--at", "x=[1,", "2]")
    assert unquoted.exit_code == 2 and "quote VALUEs that contain spaces" in unquoted.stderr


def test_plain_format_sends_warnings_to_stderr(run):
    result = run("grad", "x**0.5", "--at", "x=-1", "--format", "plain")
    assert result.stdout == "x\tnan\n"
    assert result.stderr.startswith("warning: value of t1 is nan")


def test_plain_format_writes_non_finite_numbers_bare_as_torch_computes_them(run):
    # TAB-separated, not JSON: nan and inf without quotes, as float() and sort -g read them.
    import torch

    result = run("grad", "sum(sqrt(x))+log(y)", "--at", "x=[0,1,-1]", "--at", "y=0", "--format", "plain")
    assert result.exit_code == 0
    x = torch.tensor([0.0, 1, -1], dtype=torch.float64, requires_grad=True)
    y = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    (torch.sqrt(x).sum() + torch.log(y)).backward()
    assert result.stdout == "x\t[inf,0.5,nan]\ny\tinf\n"
    cells = result.stdout.split("\t")[1].split("\n")[0].strip("[]").split(",")
    assert np.array_equal([float(v) for v in cells], x.grad.numpy(), equal_nan=True)
    assert float(result.stdout.split("\t")[-1]) == y.grad.item()


def test_symbolic_mode_explains_that_names_are_scalars(run):
    result = run("grad", "y = matmul(X, W) + b; loss = sum(y**2)")
    assert result.exit_code == 1 and "every name is a scalar" in result.stderr


def test_program_from_stdin_loses_its_trailing_newline(run_json):
    assert run_json("grad", "-", "--at", "x=2", input="(2*x)**3\n")["expression"] == "(2*x)**3"


def test_a_second_pass_without_retain_graph_prints_the_first_then_torchs_error(run):
    import torch

    x = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    y = x**3
    y.backward()
    first = x.grad.item()
    with pytest.raises(RuntimeError) as raised:
        y.backward()
    result = run("grad", "x**3", "--at", "x=3", "--passes", "2", "--format", "json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["leaves"]["x"]["grad"] == first == 27.0
    assert [p["index"] for p in document["passes"]] == [1]
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: backward pass 2 of 2: ") and str(raised.value) in line
    assert "--retain-graph" in line
    plain = run("grad", "x**3", "--at", "x=3", "--passes", "2", "--format", "plain")
    assert plain.exit_code == 1 and plain.stdout == "x\t27.0\n"


def test_a_later_gradient_of_the_wrong_shape_keeps_the_passes_before_it(run):
    import torch

    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = x * 2
    y.backward(torch.ones(2), retain_graph=True)
    with pytest.raises(RuntimeError) as raised:
        y.backward(torch.ones(1))
    argv = ["grad", "x*2", "--at", "x=[1,2]", "--gradient", "[1,1]", "--gradient", "[1]", "--retain-graph"]
    result = run(*argv, "--format", "plain")
    assert result.exit_code == 1 and result.stdout == f"x\t{x.grad.tolist()}\n".replace(" ", "")
    assert "backward pass 2 of 2: " + str(raised.value) in result.stderr


def test_the_node_table_says_its_adjoints_are_the_last_pass(run):
    table = run("grad", "x**3", "--at", "x=3", "--passes", "3", "--retain-graph", "--width", "80")
    assert table.exit_code == 0
    assert "adjoint, chain rule: pass 3 only (the last); .grad after each pass is at the end" in table.stdout
    one = run("grad", "x**3", "--at", "x=3", "--width", "80")
    assert "the last" not in one.stdout
