"""Constructors inside a program (issue 13): torch.tensor([...]), zeros, ones, full, eye, arange,
linspace, and NumPy's np.array, as constants with torch's values, dtypes and errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from oracle import F  # noqa: E402
from script_run import run_script  # noqa: E402

from gradcli import GradcliError, grad  # noqa: E402
from gradcli.graph import InputSpec, build_graph  # noqa: E402
from gradcli.ops.constructors import arange_values, linspace_values, logspace_values  # noqa: E402
from gradcli.parse import parse_program  # noqa: E402

X = [[0.5, -1.0, 2.0], [-0.3, 0.2, -2.5]]

# Each program is also valid PyTorch: it runs in torch as written, with x a float64 leaf.
PROGRAMS = [
    "(x * torch.tensor([1.5, -2.0, 0.25])).sum()",
    "(x * torch.tensor([[1, 2, 3], [4, 5, 6]])).sum()",
    "F.cross_entropy(x, torch.tensor([2, 0]))",
    "F.nll_loss(F.log_softmax(x, dim=1), torch.tensor([1, 1]), reduction='sum')",
    "(x @ torch.eye(3)).square().sum()",
    "(x @ torch.eye(3, 2)).square().sum()",
    "x[torch.arange(2), torch.tensor([2, 0])].sum()",
    "(x * torch.linspace(0, 1, 3)).sum()",
    "(x * torch.linspace(-1.0, 2.0, steps=3)).exp().sum()",
    "(x + torch.full((2, 3), 0.5)).prod()",
    "(x * torch.full((3,), 2)).sum()",
    "torch.where(torch.tensor([True, False, True]), x, 0.0).sum()",
    "(x * torch.ones(x.shape[1])).sum()",
    "(x * torch.zeros(2, 3) + x**2).sum()",
    "(x * torch.arange(len(x)).unsqueeze(1)).sum()",
    "(x * torch.arange(0.0, 1.5, 0.5)).sum()",
    "(x * torch.arange(3, 0, -1)).sum()",
    "x.sum() * torch.tensor(2.5)",
    "(x - torch.ones(2, 3, dtype=torch.float64)).abs().sum()",
    "(x * torch.tensor([1, 0, 1], dtype=torch.bool)).sum()",
    "F.mse_loss(x, torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]))",
    "F.one_hot(torch.tensor([0, 2]), num_classes=3).mul(x).sum()",
]


@pytest.fixture(autouse=True)
def _float64_default():
    """gradcli's float64 programs hold their constants in float64, as torch does with this default."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


def _in_torch(program: str):
    leaf = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    out = eval(program, {"torch": torch, "F": F, "x": leaf})  # the test's own PyTorch text
    out.backward()
    return out, leaf


@pytest.mark.parametrize("program", PROGRAMS)
def test_programs_with_constructors_equal_torch(program):
    result = grad(program, at={"x": X})
    out, leaf = _in_torch(program)
    np.testing.assert_allclose(result.value, out.item(), rtol=1e-13)
    np.testing.assert_allclose(result.grads["x"], leaf.grad.numpy(), rtol=1e-13, atol=1e-15)
    assert result.output.grad_fn == out.grad_fn.name()


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("torch.tensor([2, 0, 1])", torch.int64),
        ("torch.tensor([True, False])", torch.bool),
        ("torch.tensor([True, 2])", torch.int64),
        ("torch.tensor([1, 2.5])", torch.float64),
        ("torch.tensor([])", torch.float64),
        ("torch.tensor(3)", torch.int64),
        ("torch.arange(4)", torch.int64),
        ("torch.arange(0, 2, 0.5)", torch.float64),
        ("torch.arange(4, dtype=torch.float64)", torch.float64),
        ("torch.full((2,), 1)", torch.int64),
        ("torch.full((2,), True)", torch.bool),
        ("torch.full((2,), 1.5, dtype=torch.long)", torch.int64),
        ("torch.ones(2, dtype=torch.bool)", torch.bool),
        ("torch.zeros(2, 3)", torch.float64),
        ("torch.eye(2)", torch.float64),
        ("torch.linspace(0, 1, 4)", torch.float64),
    ],
)
def test_each_constant_has_the_dtype_and_values_torch_gives_it(call, expected):
    made = eval(call, {"torch": torch})
    assert made.dtype == expected
    graph = build_graph(parse_program(f"c = {call}; x * c.sum()"), {"x": InputSpec("leaf", ())})
    node = next(n for n in graph.nodes if n.name == "c")
    assert node.dtype == {torch.int64: "int64", torch.bool: "bool", torch.float64: "float"}[expected]
    assert node.shape == tuple(made.shape) and not node.requires_grad and node.grad_fn is None
    value = np.asarray(node.op.forward(**node.attrs))
    np.testing.assert_array_equal(value, made.double().numpy())


def test_numpy_spellings_make_the_same_constants():
    for numpy_call, torch_call in [
        ("np.array([1.0, 2.0, 3.0])", "torch.tensor([1.0, 2.0, 3.0])"),
        ("np.zeros(3)", "torch.zeros(3)"),
        ("np.arange(3)", "torch.arange(3)"),
        ("jnp.ones((3,))", "torch.ones(3)"),
    ]:
        mine = grad(f"(x * {numpy_call}).sum()", at={"x": X})
        theirs = grad(f"(x * {torch_call}).sum()", at={"x": X})
        np.testing.assert_array_equal(mine.grads["x"], theirs.grads["x"])


def test_float32_constants_round_as_torchs_do():
    program = "(x * torch.tensor([0.1, 0.2, 0.3])).sum()"
    result = grad(program, at={"x": X}, dtype="float32")
    torch.set_default_dtype(torch.float32)
    leaf = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    out = (leaf * torch.tensor([0.1, 0.2, 0.3])).sum()
    out.backward()
    assert result.grads["x"].dtype == np.float32
    np.testing.assert_array_equal(result.grads["x"], leaf.grad.numpy())
    np.testing.assert_allclose(result.value, out.item(), rtol=1e-6)  # float32 sums: order differs


@pytest.mark.parametrize(
    ("program", "torch_program"),
    [
        ("x @ torch.ones(3, 2, dtype=torch.long)", "x @ torch.ones(3, 2, dtype=torch.long)"),
        ("torch.tensor([[1, 2], [3]]) * x", "torch.tensor([[1, 2], [3]]) * x"),
        ("torch.arange(0, 3, 0) * x", "torch.arange(0, 3, 0) * x"),
        ("torch.arange(3, 0, 1) * x", "torch.arange(3, 0, 1) * x"),
        ("torch.ones(-2) * x", "torch.ones(-2) * x"),
        ("torch.eye(-1) * x", "torch.eye(-1) * x"),
        ("torch.linspace(0, 1, -1) * x", "torch.linspace(0, 1, -1) * x"),
    ],
)
def test_refusals_are_torchs_words(program, torch_program):
    leaf = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    with pytest.raises((RuntimeError, ValueError)) as theirs:
        eval(torch_program, {"torch": torch, "x": leaf})
    with pytest.raises(GradcliError) as ours:
        grad(program, at={"x": X})
    assert ours.value.message.endswith(str(theirs.value))


@pytest.mark.parametrize(
    ("program", "words"),
    [
        ("torch.tensor(x) * x", "takes numbers here"),
        ("torch.tensor([x.sum()]) * x", "takes numbers here"),
        ("torch.ones(2, dtype=torch.int32) * x", "dtype must be torch.float64"),
        ("torch.ones(2, requires_grad=True) * x", "requires_grad=True makes a leaf"),
        ("torch.linspace(0, 1) * x", "missing 1 required positional argument: 'steps'"),
        ("torch.full((2,)) * x", "missing 1 required positional argument: 'fill_value'"),
        ("x.ones(2)", "torch has no Tensor.ones"),
    ],
)
def test_what_gradcli_does_not_take_is_one_clear_error(program, words):
    with pytest.raises(GradcliError) as error:
        grad(program, at={"x": X})
    assert words in str(error.value)


def test_the_table_writes_the_constructor_as_the_program_does(run):
    result = run("grad", "(x * torch.tensor([1.5, -2.0])).sum()", "--at", "x=[1,2]")
    assert result.exit_code == 0, result.output
    assert "torch.tensor([1.5, -2.0])" in result.output
    assert "None (no grad)" in result.output


def test_a_program_that_starts_with_a_constructor_runs_from_the_cli(run):
    result = run("grad", "torch.arange(1.0, 3.0) @ x", "--at", "x=[0.5,2]", "--format", "plain")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "x\t[1.0,2.0]"


def test_constructors_serve_jacobian_hessian_and_batch(run):
    jac = run("jacobian", "x * torch.arange(1.0, 3.0)", "--at", "x=[1,2]", "--format", "json")
    assert jac.exit_code == 0, jac.output
    assert json.loads(jac.output)["jacobian"]["x"] == [[1.0, 0.0], [0.0, 2.0]]
    second = grad("(torch.tensor([1.0, 3.0]) * x**3).sum()", at={"x": [1.0, 2.0]}, order=2)
    np.testing.assert_allclose(second.grads["x"], [6.0, 36.0])
    batch = run(
        "grad",
        "(x * torch.tensor([2.0, -1.0])).sum()",
        "--batch",
        "-",
        input='{"x": [1, 2]}\n{"x": [3, 4]}\n',
    )
    assert batch.exit_code == 0, batch.output
    assert [json.loads(line)["grads"]["x"] for line in batch.output.splitlines()] == [[2.0, -1.0]] * 2


@st.composite
def _ranges(draw):
    start = draw(st.floats(-50, 50, allow_nan=False))
    span = draw(st.floats(0.01, 60, allow_nan=False)) * draw(st.sampled_from([1, -1]))
    return start, start + span, draw(st.integers(0, 400)), draw(st.floats(0.001, 3)) * (1 if span > 0 else -1)


@settings(max_examples=200, deadline=None)
@given(_ranges(), st.sampled_from([(np.float32, torch.float32), (np.float64, torch.float64)]))
def test_arange_and_linspace_values_are_torchs_to_the_last_bit(bounds, dtypes):
    """torch's kernels fuse a multiply-add in double, and arange's vectors add lanes to a
    rounded base: float32 arange(-3.47, 0, 0.113)[4] is -3.0180001, not -3.018."""
    start, end, steps, step = bounds
    ours, theirs = dtypes
    expected = torch.linspace(start, end, steps, dtype=theirs).numpy()
    assert np.array_equal(linspace_values(start, end, steps, ours), expected)
    expected = torch.arange(start, end, step, dtype=theirs).numpy()
    assume(expected.size < 32768)  # above its grain size torch splits the range between threads
    assert np.array_equal(arange_values(start, end, step, ours), expected)


@settings(max_examples=200, deadline=None)
@given(
    st.floats(-30, 30),
    st.floats(-30, 30),
    st.integers(0, 300),
    st.sampled_from([10.0, 2.0, 0.5, 2.718281828459045]),
    st.sampled_from([(np.float32, torch.float32), (np.float64, torch.float64), (np.int64, torch.int64)]),
)
def test_logspace_values_are_torchs_to_the_last_bit(start, end, steps, base, dtypes):
    """Exponents in double from the dtype's start and end, the second half counted down."""
    ours, theirs = dtypes
    if ours is np.int64:  # integers: small exponents, so the powers fit
        start, end = start / 10, end / 10
    expected = torch.logspace(start, end, steps, base=base, dtype=theirs).numpy()
    assert np.array_equal(logspace_values(start, end, steps, base, ours), expected)


def test_a_script_makes_logspace_as_torch_does():
    script = "import torch\nprint(torch.logspace(-2, 3, 41).tolist(), torch.logspace(0, 1, 3, base=2, dtype=torch.float64).tolist())\n"
    single = torch.float32
    expected = f"{torch.logspace(-2, 3, 41, dtype=single).tolist()} {torch.logspace(0, 1, 3, base=2, dtype=torch.float64).tolist()}\n"
    assert run_script(script).stdout == expected
    assert "'steps'" in run_script("import torch\ntorch.logspace(0, 1)\n").error


def test_a_script_prints_float32_ranges_as_torch_does(tmp_path):
    script = "import torch\nprint(torch.arange(-3.47, 0, 0.113).tolist())\nprint(torch.linspace(-1, 1, 40).tolist())\n"
    single = torch.float32  # the script's default dtype; this process may have changed its own
    expected = f"{torch.arange(-3.47, 0, 0.113, dtype=single).tolist()}\n{torch.linspace(-1, 1, 40, dtype=single).tolist()}\n"
    assert run_script(script).stdout == expected
