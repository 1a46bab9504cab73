"""Programs as PyTorch, NumPy and JAX users spell them (issue 13): prefixes, methods, aliases,
programs that start with a minus sign, names that shadow constants, rebinding and +=.

PyTorch runs the same computation, written as a torch user writes it, as the oracle.
"""

from __future__ import annotations

import math
import re

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
        # tensors by torch's keyword names
        ("torch.matmul(input=x, other=x * 2)", lambda x: torch.matmul(input=x, other=x * 2)),
        ("torch.sub(input=x, other=x.sin()).sum()", lambda x: torch.sub(input=x, other=x.sin()).sum()),
        ("torch.dot(x, tensor=x.exp())", lambda x: torch.dot(x, tensor=x.exp())),
        ("x.mul(other=x).sum()", lambda x: x.mul(other=x).sum()),
        ("torch.pow(input=x, exponent=3).sum()", lambda x: torch.pow(input=x, exponent=3).sum()),
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
        ("torch.norm(x, axis=0)", "unexpected keyword argument 'axis'"),  # a Python function in torch
        ("F.softmax(x, axis=0)", "unexpected keyword argument 'axis'"),
        ("torch.__builtins__(x)", "'__builtins__'"),
        ("torch.nn.functionl.relu(x)", "unknown module"),
        ("x.int().sum()", "x.long() gives int64"),
        ("x.cuda().sum()", "leave .cuda() out"),
        ("(torch.randn(2, 3) * x).sum()", "a program has no random numbers"),
        ("(x.requires_grad_() * 2).sum()", "a program's leaves are its --at names"),
        ("x.sum().backward()", "runs with 'gradcli run'"),
        ("torch.clamp(x, min=x, max=1.0).sum()", "both bounds as tensors or both as numbers"),
        ("x.sum(dim=(1, -1))", "dim 1 appears multiple times in the list of dims"),
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


# ---- issue 13's remaining spellings, each against torch ------------------------------------

M = [[0.3, -1.2, 0.8], [1.5, 0.2, -0.7]]


@pytest.mark.parametrize(
    ("program", "function"),
    [
        ("x.sum(1, keepdims=True).exp().sum()", lambda x: x.sum(1, keepdims=True).exp().sum()),
        ("torch.sum(x, axis=0).sin().sum()", lambda x: torch.sum(x, axis=0).sin().sum()),
        ("x.max(axis=1)[0].sum()", lambda x: x.max(axis=1)[0].sum()),
        ("x.max(1, keepdims=True).values.sum()", lambda x: x.max(1, keepdims=True).values.sum()),
        (
            "torch.logsumexp(x, axis=1, keepdims=True).sum()",
            lambda x: torch.logsumexp(x, axis=1, keepdims=True).sum(),
        ),
        ("torch.max(x, torch.zeros_like(x)).sum()", lambda x: torch.max(x, torch.zeros_like(x)).sum()),
        ("x.min(x * 2).sum()", lambda x: x.min(x * 2).sum()),
        ("torch.max(x, other=x.exp()).sum()", lambda x: torch.max(x, other=x.exp()).sum()),
        ("F.normalize(x, p=2.0, dim=1).sin().sum()", lambda x: F.normalize(x, p=2.0, dim=1).sin().sum()),
        ("F.normalize(x, p=1, dim=0).sum()", lambda x: F.normalize(x, p=1, dim=0).sum()),
        (
            "x.clamp_min(0.1).sum() + torch.clamp_max(x, 0.5).sum()",
            lambda x: x.clamp_min(0.1).sum() + torch.clamp_max(x, 0.5).sum(),
        ),
        # one floating dtype: x.double() of a float64 x is x (no node), as in torch
        ("(x.double() * 2).sum()", lambda x: (x.double() * 2).sum()),
        ("x[list(range(len(x))), [0, 2]].sum()", lambda x: x[list(range(len(x))), [0, 2]].sum()),
        ("x[torch.arange(2), [1, 0]].sum()", lambda x: x[torch.arange(2), [1, 0]].sum()),
        ("(x.detach().cpu() * x).sum()", lambda x: (x.detach().cpu() * x).sum()),
        ("x.exp().sum(dim=(0, 1))", lambda x: x.exp().sum(dim=(0, 1))),
        (
            "x.masked_fill(x > 1, float('-inf')).softmax(1).sum(0).log().sum()",
            lambda x: x.masked_fill(x > 1, float("-inf")).softmax(1).sum(0).log().sum(),
        ),
        ("(x + float('1e-3') * math.inf * 0).sum()", lambda x: (x + float("1e-3") * math.inf * 0).sum()),
        ("(x * x.mean(dim=[1], keepdim=True)).sum()", lambda x: (x * x.mean(dim=[1], keepdim=True)).sum()),
        # tensor bounds: torch's clamp.Tensor (ClampBackward0), by position or keyword, one left out
        ("torch.clamp(x, x[0] * 0, x[1]).sum()", lambda x: torch.clamp(x, x[0] * 0, x[1]).sum()),
        ("x.clamp(min=x.mean(0)).exp().sum()", lambda x: x.clamp(min=x.mean(0)).exp().sum()),
        ("torch.clip(x, max=x.T.T * 0.5).sum()", lambda x: torch.clip(x, max=x.T.T * 0.5).sum()),
        ("np.clip(x, a_min=x * 0.5, a_max=None).sum()", lambda x: torch.clamp(x, min=x * 0.5).sum()),
        ("F.linear(input=x, weight=x).exp().sum()", lambda x: F.linear(input=x, weight=x).exp().sum()),
    ],
)
def test_issue_13_spellings_compute_what_torch_computes(program, function):
    from test_shape_ops import torch_chain

    result = grad(program, at={"x": M})
    out, (want,) = torch_grad(function, M)
    np.testing.assert_allclose(result.value, out.item(), rtol=1e-12)
    np.testing.assert_allclose(result.grads["x"], want, rtol=1e-12, atol=1e-15)
    assert [n.grad_fn for n in result.nodes if n.grad_fn] == torch_chain(out)


def _chain(fn) -> str:
    inner = [_chain(f) for f, _ in fn.next_functions if f is not None]
    return fn.name().replace("torch::autograd::", "") + (f"({', '.join(inner)})" if inner else "")


def _our_chain(result, node=None) -> str:
    nodes = {n.name: n for n in result.nodes}
    node = node or nodes[result.output.name]
    if node.kind == "leaf":
        return "AccumulateGrad"
    inner = [_our_chain(result, nodes[i]) for i in node.inputs if nodes[i].requires_grad]
    return node.grad_fn + (f"({', '.join(inner)})" if inner else "")


@pytest.mark.parametrize(
    ("program", "shapes", "function"),
    [  # torch 2.13 records v @ W with a 1-D v as unsqueeze, mm, squeeze; M @ v as one mv
        ("v @ W", {"v": (3,), "W": (3, 4)}, lambda v, W: v @ W),
        ("W @ v", {"W": (4, 3), "v": (3,)}, lambda W, v: W @ v),
        ("torch.matmul(v, W).sum()", {"v": (3,), "W": (3, 2)}, lambda v, W: torch.matmul(v, W).sum()),
        ("v @ v", {"v": (3,)}, lambda v: v @ v),
        ("F.normalize(W, dim=1)", {"W": (2, 3)}, lambda W: F.normalize(W, dim=1)),
    ],
)
def test_graphs_are_recorded_as_torch_records_them(program, shapes, function):
    rng = np.random.default_rng(13)
    at = {name: rng.uniform(-1, 1, shape).tolist() for name, shape in shapes.items()}
    leaves = [torch.tensor(at[n], dtype=torch.float64, requires_grad=True) for n in shapes]
    out = function(*leaves)
    gradient = rng.uniform(-1, 1, tuple(out.shape)) if out.dim() else np.ones(())
    out.backward(torch.tensor(gradient))
    result = grad(program, at=at, gradient=gradient.tolist() if out.dim() else None)
    assert _our_chain(result) == _chain(out.grad_fn)
    for name, leaf in zip(shapes, leaves, strict=True):
        np.testing.assert_allclose(result.grads[name], leaf.grad.numpy(), rtol=1e-12)


def test_sizes_unpack_as_python_unpacks_them():
    x3 = np.arange(12.0).reshape(3, 2, 2).tolist()
    result = grad("B, T, C = x.shape\nx = x.view(B, T // 2, C * 2)\n(x ** 2).sum()", at={"x": x3})
    assert result.output.grad_fn == "SumBackward0" and float(result.value) == float(np.sum(np.square(x3)))
    for program in ("B, T = x.shape\nx.sum()", "B, T, C, D = x.size()\nx.sum()"):
        with pytest.raises(ValueError) as python:
            exec(program.split("\n")[0].replace("x.", "t."), {"t": torch.zeros(3, 2, 2)})
        with pytest.raises(GradcliError) as ours:
            grad(program, at={"x": x3})
        assert ours.value.message.split(": ", 1)[1] == str(python.value)
    with pytest.raises(GradcliError, match="subscript and attribute targets"):
        grad("x[0] = 1\nx.sum()", at={"x": x3})


def test_spellings_torch_refuses_are_refused():
    """The sets gradcli refuses by are torch's: checked name by name against torch itself."""
    from gradcli.ops import FUNCTIONAL, NOT_IN_TORCH, NOT_METHODS

    for name in TORCH_SPELLINGS_NAMES:
        assert (name in FUNCTIONAL) == hasattr(F, name), name
        assert (name in NOT_IN_TORCH) == (not callable(getattr(torch, name, None))), name
        assert (name in NOT_METHODS) == (not hasattr(torch.Tensor, name)), name
    for program, fragment in [
        ("F.sin(x).sum()", "unknown function 'F.sin'"),
        ("x.softplus().sum()", "unknown method '.softplus()'"),
        ("torch.view(x, -1).sum()", "unknown function 'torch.view'"),
        ("torch.float(x).sum()", "unknown function 'torch.float'"),
        ("float(x)", "Python's float"),
    ]:
        with pytest.raises(GradcliError, match=re.escape(fragment)):
            grad(program, at={"x": X})


def _spelling_names() -> list[str]:
    from gradcli.ops import TORCH_SPELLINGS

    return sorted(name for name in TORCH_SPELLINGS if not name.startswith("np_"))


TORCH_SPELLINGS_NAMES = _spelling_names()


# NumPy's and Python math's own meanings: a name they share with torch is computed as NumPy
# (or math) computes it, or refused with the torch spelling to write, never silently torch's.
MATRIX = [[1.0, 2.0], [3.0, 4.0]]


@pytest.mark.parametrize(
    ("program", "x", "numpy_function"),
    [
        ("np.repeat(x, 2)", X, lambda x: np.repeat(x, 2)),  # each element twice, not Tensor.repeat's tiling
        ("np.repeat(x, 2, 1)", MATRIX, lambda x: np.repeat(x, 2, 1)),
        ("jnp.repeat(x, 3, axis=0)", MATRIX, lambda x: np.repeat(x, 3, axis=0)),
        ("np.dot(x, x)", X, lambda x: np.dot(x, x)),
        ("np.dot(x, x)", MATRIX, lambda x: np.dot(x, x)),
        ("math.sin(x)", X, np.sin),
    ],
)
def test_numpy_names_compute_what_numpy_computes(program, x, numpy_function):
    expected = numpy_function(np.asarray(x))
    result = grad(f"sum({program} ** 2)", at={"x": x})
    np.testing.assert_allclose(result.value, np.sum(expected**2), rtol=1e-12)


@pytest.mark.parametrize(
    ("program", "fragment"),
    [
        ("np.select(x, 0, 1)", "'np.select' means NumPy's select"),
        ("np.sort(x)[0]", "torch.sort(x, dim).values"),
        ("jnp.pad(x, (1, 2))", "F.pad(x, pad)"),
        ("np.nan_to_num(x, 5.0)", "second argument is copy"),
        ("np.dot(y, y)", "np.dot of a 3-D array is not matmul"),
        ("math.sum(x)", "unknown function 'math.sum'"),
        ("math.remainder(x, 3)", "unknown function 'math.remainder'"),
        ("math.prod(x)", "unknown function 'math.prod'"),
    ],
)
def test_numpy_and_math_names_with_another_meaning_are_refused(program, fragment):
    with pytest.raises(GradcliError, match=re.escape(fragment)):
        at = {"y": [MATRIX, MATRIX]} if "y" in program else {"x": X}
        grad(f"sum({program})", at=at)


def test_every_math_name_is_a_function_of_pythons_math_module():
    from gradcli.ops import MODULES

    for name in MODULES["math"]:
        assert callable(getattr(math, name, None)), name
