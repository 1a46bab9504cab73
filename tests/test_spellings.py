"""Programs as PyTorch, NumPy and JAX users spell them (issue 13): prefixes, methods, aliases,
programs that start with a minus sign, names that shadow constants, rebinding and +=.

PyTorch runs the same computation, written as a torch user writes it, as the oracle.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from gradcli import GradcliError, grad  # noqa: E402

X = [0.5, -1.25, 2.0]


def torch_grad(function, *values):
    leaves = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    out = function(*leaves)
    out.backward()
    return out, [leaf.grad.numpy() for leaf in leaves]


@pytest.mark.parametrize(
    ("program", "function"),
    [
        ("torch.sum(torch.square(x))", lambda x: torch.sum(torch.square(x))),
        ("x.square().sum()", lambda x: x.square().sum()),
        ("F.relu(x).mean()", lambda x: F.relu(x).mean()),
        ("torch.nn.functional.softplus(x).sum()", lambda x: F.softplus(x).sum()),
        ("np.sum(np.sin(x) ** 2, axis=0)", lambda x: torch.sum(torch.sin(x) ** 2, dim=0)),
        ("np.mean(x, axis=0, keepdims=True).sum()", lambda x: x.mean(dim=0, keepdim=True).sum()),
        ("jnp.sum(jnp.arctan(x))", lambda x: torch.atan(x).sum()),
        ("x.mul(2).add(1).pow(2).sum()", lambda x: x.mul(2).add(1).pow(2).sum()),
        ("x.sub(1).div(3).neg().exp().sum()", lambda x: x.sub(1).div(3).neg().exp().sum()),
        ("torch.dot(x, x)", lambda x: torch.dot(x, x)),
        ("x.dot(x) * math.pi", lambda x: x.dot(x) * np.pi),
        ("torch.mean(torch.tanh(x), dim=0)", lambda x: torch.mean(torch.tanh(x), dim=0)),
        ("-x.sum()", lambda x: -x.sum()),
    ],
)
def test_spellings_compute_what_torch_computes(program, function):
    result = grad(program, at={"x": X})
    out, (want,) = torch_grad(function, X)
    np.testing.assert_allclose(result.value, out.item(), rtol=1e-12)
    np.testing.assert_allclose(result.grads["x"], want, rtol=1e-12)
    assert result.output.grad_fn == out.grad_fn.name()


def test_square_is_recorded_as_torch_records_it():
    result = grad("x.square().sum()", at={"x": X})
    out, _ = torch_grad(lambda x: x.square().sum(), X)
    assert [n.grad_fn for n in result.nodes if n.grad_fn] == [
        out.grad_fn.next_functions[0][0].name(),
        out.grad_fn.name(),
    ]


def test_names_may_shadow_constants_and_functions():
    # micrograd's README names a node e; a leaf may be called t or pi.
    result = grad("e = a*b; d = e + c; f = d*d", at={"a": 2.0, "b": -3.0, "c": 10.0})
    _, grads = torch_grad(lambda a, b, c: (a * b + c) * (a * b + c), 2.0, -3.0, 10.0)
    assert [float(result.grads[n]) for n in "abc"] == [float(g) for g in grads]
    assert float(grad("t*e + pi", at={"t": 2.0, "e": 3.0, "pi": 1.0}).grads["e"]) == 2.0
    assert float(grad("e*x", at={"x": 1.0}).grads["x"]) == np.e  # unbound, e is Euler's


def test_rebinding_and_augmented_assignment_make_new_nodes():
    # micrograd's README: c += c + 1 on a non-leaf is PyTorch's in-place add.
    result = grad("c = a + b; c += c + 1; d = c*c", at={"a": -4.0, "b": 2.0})

    def torch_program(a, b):
        c = a + b
        c += c + 1
        return c * c

    out, grads = torch_grad(torch_program, -4.0, 2.0)
    assert float(result.value) == out.item()
    assert [float(result.grads[n]) for n in "ab"] == [float(g) for g in grads]
    assert [n.name for n in result.nodes if n.kind == "op"] == ["c", "t1", "c_2", "d"]


def test_an_in_place_op_on_a_leaf_is_torchs_error():
    leaf = torch.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError) as torch_error:
        leaf += 1
    with pytest.raises(GradcliError) as ours:
        grad("x += 1; x", at={"x": 1.0})
    assert ours.value.message == str(torch_error.value)


@pytest.mark.parametrize(
    "args",
    [
        ["-x**2", "--at", "x=3"],
        ["--at", "x=3", "-x**2"],
        ["--at", "x=3", "--", "-x**2"],
        ["-(x**2)", "--format", "plain", "--at", "x=3"],
    ],
)
def test_a_program_that_starts_with_minus_is_read_as_the_program(run, args):
    if "--format" not in args and "--" not in args:
        args = [*args, "--format", "plain"]
    elif "--" in args:
        args = ["--format", "plain", *args]
    result = run("grad", *args)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "x\t-6.0\n"


def test_an_unknown_option_says_how_to_pass_a_program_that_looks_like_one(run):
    result = run("grad", "--nope", "--at", "x=1")
    assert result.exit_code == 2
    assert "No such option '--nope'" in result.stderr and "goes after --" in result.stderr


@pytest.mark.parametrize(
    ("program", "fragment"),
    [
        ("torch.sum(x, dim=1.5)", "dim must be an integer literal"),
        ("torch.sum(x, keepdim=1)", "keepdim must be True or False"),
        ("torch.sum(x, axis=0)", "unexpected keyword argument 'axis'"),
        ("torch.__builtins__(x)", "'__builtins__'"),
        ("torch.nn.functionl.relu(x)", "unknown module"),
    ],
)
def test_wrong_arguments_are_clear_errors(program, fragment):
    with pytest.raises(GradcliError) as raised:
        grad(program, at={"x": [[1.0, 2.0]]})
    assert fragment in str(raised.value)


def test_a_composite_call_records_the_nodes_it_is_made_of(monkeypatch):
    """The mechanism cross_entropy and friends use: one call, several registry nodes."""
    from gradcli.ops import COMPOSITES, TORCH_SPELLINGS, Composite, Param, Spelling

    scaled_sin = Composite(
        "scaled_sin",
        arity=1,
        params=(Param("scale", 2.0, "number"),),
        build=lambda apply, x, scale: apply("mul", apply("sin", x), scale),
        torch="",
    )
    monkeypatch.setitem(COMPOSITES, "scaled_sin", scaled_sin)
    monkeypatch.setitem(TORCH_SPELLINGS, "scaled_sin", Spelling("scaled_sin"))
    result = grad("x.scaled_sin(scale=3).sum()", at={"x": X})
    assert [n.grad_fn for n in result.nodes if n.grad_fn] == ["SinBackward0", "MulBackward0", "SumBackward0"]
    np.testing.assert_allclose(result.grads["x"], 3 * np.cos(X), rtol=1e-15)


def test_positional_params_bind_in_order_and_extra_ones_are_refused():
    from gradcli.parse import parse_program

    program = parse_program("x.sum(0)")
    assert dict(program.statements[0].expr.attrs) == {"dim": 0, "keepdim": False}
    with pytest.raises(GradcliError, match="takes 1 to 3"):
        parse_program("x.sum(0, True, 1)")
