"""The shape family end to end (reshape, view, flatten, squeeze, unsqueeze, permute, transpose,
expand, repeat, clone, contiguous), each program written as a PyTorch or NumPy user writes it.

torch 2.x is the oracle: the same program in torch gives the values, every leaf's grad, the
grad_fn of every node in order, the Hessian, and the error text for a bad shape or dim.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import strict_loads
from oracle import close, torch

from gradcli import GradcliError, grad, hessian
from gradcli.ops.shape import view_strides

F = torch.nn.functional

X23 = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.3]]
X234 = np.linspace(-1.2, 1.3, 24).reshape(2, 3, 4).tolist()
X13 = [[0.4, -0.7, 1.1]]


def torch_chain(out) -> list[str]:
    """torch's grad_fn names in the order the program creates them: operands left to right first."""
    names: list[str] = []
    seen: set[int] = set()

    def visit(node) -> None:
        if node is None or id(node) in seen or type(node).__name__ == "AccumulateGrad":
            return
        seen.add(id(node))
        for parent, _ in node.next_functions:
            visit(parent)
        names.append(node.name())

    visit(out.grad_fn)
    return names


# gradcli program, the same in torch (a function of the leaf), the leaf's value
PROGRAMS = [
    ("(x.reshape(3, 2) ** 3).sum()", lambda x: (x.reshape(3, 2) ** 3).sum(), X23),
    ("torch.reshape(x, (-1,)).sin().sum()", lambda x: torch.reshape(x, (-1,)).sin().sum(), X23),
    ("np.reshape(x, -1).exp().sum()", lambda x: torch.reshape(x, (-1,)).exp().sum(), X23),
    ("(x.view(-1, 2) * x.view(3, 2)).sum()", lambda x: (x.view(-1, 2) * x.view(3, 2)).sum(), X23),
    ("x.view(size=(6,)).tanh().sum()", lambda x: x.view(size=(6,)).tanh().sum(), X23),
    (
        "torch.flatten(x, start_dim=1).pow(2).sum()",
        lambda x: torch.flatten(x, start_dim=1).pow(2).sum(),
        X234,
    ),
    ("x.flatten(0, 1).sin().sum()", lambda x: x.flatten(0, 1).sin().sum(), X234),
    ("x.flatten().cos().sum()", lambda x: x.flatten().cos().sum(), X23),
    ("torch.squeeze(x).exp().sum()", lambda x: torch.squeeze(x).exp().sum(), X13),
    ("x.squeeze(0).sin().sum()", lambda x: x.squeeze(0).sin().sum(), X13),
    ("np.squeeze(x, axis=0).sin().sum()", lambda x: x.squeeze(0).sin().sum(), X13),
    ("(x.unsqueeze(-1) * x.unsqueeze(1)).sum()", lambda x: (x.unsqueeze(-1) * x.unsqueeze(1)).sum(), X23),
    ("np.expand_dims(x, axis=1).exp().sum()", lambda x: x.unsqueeze(1).exp().sum(), X23),
    ("(x.permute(2, 0, 1) ** 2).mean()", lambda x: (x.permute(2, 0, 1) ** 2).mean(), X234),
    (
        "torch.permute(x, (1, 0)).sin().sum(0).sum()",
        lambda x: torch.permute(x, (1, 0)).sin().sum(0).sum(),
        X23,
    ),
    ("np.transpose(x, (1, 2, 0)).exp().sum()", lambda x: x.permute(1, 2, 0).exp().sum(), X234),
    ("np.transpose(x).sin().sum(0).sum()", lambda x: x.permute(1, 0).sin().sum(0).sum(), X23),
    ("(x.transpose(1, 2) + 1).square().mean()", lambda x: (x.transpose(1, 2) + 1).square().mean(), X234),
    ("(torch.transpose(x, 0, 1) @ x).sum()", lambda x: (torch.transpose(x, 0, 1) @ x).sum(), X23),
    ("(x.expand(4, 2, 3) * 1.5).sin().sum()", lambda x: (x.expand(4, 2, 3) * 1.5).sin().sum(), X23),
    ("x.expand(3, -1).exp().sum()", lambda x: x.expand(3, -1).exp().sum(), [0.5, -0.25, 1.0]),
    ("x.repeat(2, 1, 2).sin().sum()", lambda x: x.repeat(2, 1, 2).sin().sum(), X23),
    ("(x.clone() * x).sum()", lambda x: (x.clone() * x).sum(), X23),
    ("torch.clone(x).sin().sum()", lambda x: torch.clone(x).sin().sum(), X23),
    ("x.contiguous().sin().sum()", lambda x: x.contiguous().sin().sum(), X23),
    ("(x.movedim(0, -1) ** 2 * x.movedim(0, 2)).sum()", lambda x: (x.movedim(0, -1) ** 2 * x.movedim(0, 2)).sum(), X234),
    ("torch.moveaxis(x, (0, 1), (2, 0)).cumsum(0).sum()", lambda x: torch.moveaxis(x, (0, 1), (2, 0)).cumsum(0).sum(), X234),
    ("np.moveaxis(x, 1, 1).exp().sum()", lambda x: torch.movedim(x, 1, 1).exp().sum(), X23),
    ("(F.pad(x, (1, 2)) ** 2).sum()", lambda x: (F.pad(x, (1, 2)) ** 2).sum(), X23),
    (
        "F.pad(x, (0, 2, 1, -1), value=-1.5).exp().sum()",
        lambda x: F.pad(x, (0, 2, 1, -1), value=-1.5).exp().sum(),
        X234,
    ),
    ("torch.constant_pad_nd(x, (-1, 1)).sin().sum()", lambda x: torch.constant_pad_nd(x, (-1, 1)).sin().sum(), X23),
    ("(x.repeat_interleave(2) ** 2).sum()", lambda x: (x.repeat_interleave(2) ** 2).sum(), X23),
    (
        "(torch.repeat_interleave(x, 3, dim=1).cumsum(1)).sum()",
        lambda x: (torch.repeat_interleave(x, 3, dim=1).cumsum(1)).sum(),
        X23,
    ),
    ("x.t().repeat_interleave(2, dim=-1).exp().sum()", lambda x: x.t().repeat_interleave(2, dim=-1).exp().sum(), X23),
    ("(x.narrow(1, 1, 2) ** 2).sum()", lambda x: (x.narrow(1, 1, 2) ** 2).sum(), X23),
    ("torch.narrow(x, 0, -1, 1).exp().sum()", lambda x: torch.narrow(x, 0, -1, 1).exp().sum(), X23),
    # roll: one RollBackward0; its gradient rolls back (flattened when no dims are given)
    ("(x.roll(1) * x).sum()", lambda x: (x.roll(1) * x).sum(), X23),
    ("(x.roll(-1, 1) ** 3).cumsum(1).sum()", lambda x: (x.roll(-1, 1) ** 3).cumsum(1).sum(), X23),
    ("(torch.roll(x, (1, 2), (0, -1)) * x).sum()", lambda x: (torch.roll(x, (1, 2), (0, -1)) * x).sum(), X234),
    ("x.roll(shifts=4, dims=2).cumsum(2).exp().sum()", lambda x: x.roll(shifts=4, dims=2).cumsum(2).exp().sum(), X234),
]


@pytest.mark.parametrize(("program", "function", "value"), PROGRAMS, ids=[p[0] for p in PROGRAMS])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_programs_compute_and_record_what_torch_does(program, function, value, dtype):
    result = grad(program, at={"x": value}, dtype=dtype)
    leaf = torch.tensor(value, dtype=getattr(torch, dtype), requires_grad=True)
    out = function(leaf)
    out.backward(torch.ones_like(out))
    tolerance = {"rtol": 1e-12, "atol": 1e-14} if dtype == "float64" else {"rtol": 1e-5, "atol": 1e-6}
    assert close(result.value, out.detach().numpy(), **tolerance)
    assert close(result.grads["x"], leaf.grad.numpy(), **tolerance)
    assert [n.grad_fn for n in result.nodes if n.kind == "op"] == torch_chain(out)


def test_the_nodes_are_torchs_tensors_one_by_one():
    """Every intermediate's value and adjoint, against the torch tensors with retain_grad."""
    result = grad(
        "a = x.unsqueeze(0); b = a.expand(3, 2, 3); c = b.permute(2, 1, 0); (c.sin() ** 2).sum()",
        at={"x": X23},
    )
    x = torch.tensor(X23, dtype=torch.float64, requires_grad=True)
    a = x.unsqueeze(0)
    b = a.expand(3, 2, 3)
    c = b.permute(2, 1, 0)
    for t in (a, b, c):
        t.retain_grad()
    (c.sin() ** 2).sum().backward()
    nodes = {n.name: n for n in result.nodes}
    for name, tensor in {"a": a, "b": b, "c": c}.items():
        assert nodes[name].grad_fn == tensor.grad_fn.name()
        assert close(nodes[name].value, tensor.detach().numpy(), rtol=1e-15)
        assert close(nodes[name].adjoint, tensor.grad.numpy(), rtol=1e-12)


def _torch_error(function, value) -> str:
    leaf = torch.tensor(value, dtype=torch.float64, requires_grad=True)
    with pytest.raises((RuntimeError, IndexError)) as raised:
        function(leaf)
    return str(raised.value).splitlines()[0]


ERRORS = [
    ("x.reshape(4)", lambda x: x.reshape(4), X23),
    ("x.view(4, -1)", lambda x: x.view(4, -1), X23),
    ("x.reshape(-1, -1)", lambda x: x.reshape(-1, -1), X23),
    ("x.reshape(-2, 3)", lambda x: x.reshape(-2, 3), X23),
    ("x.reshape(())", lambda x: x.reshape(()), X23),
    ("x.flatten(2)", lambda x: x.flatten(2), X23),
    ("x.flatten(1, 0)", lambda x: x.flatten(1, 0), X23),
    ("x.squeeze(2)", lambda x: x.squeeze(2), X23),
    ("x.unsqueeze(3)", lambda x: x.unsqueeze(3), X23),
    ("x.unsqueeze(-4)", lambda x: x.unsqueeze(-4), X23),
    ("x.permute(0, 1, 2)", lambda x: x.permute(0, 1, 2), X23),
    ("x.permute(0, 0)", lambda x: x.permute(0, 0), X23),
    ("x.permute(0, 2)", lambda x: x.permute(0, 2), X23),
    ("x.transpose(0, 2)", lambda x: x.transpose(0, 2), X23),
    ("x.expand(3)", lambda x: x.expand(3), X23),
    ("x.expand(2, 4)", lambda x: x.expand(2, 4), X23),
    ("x.expand(3, 2)", lambda x: x.expand(3, 2), X23),  # torch checks the last dim first
    ("x.expand(-1, 4, 3)", lambda x: x.expand(-1, 4, 3), X23),
    ("x.expand(-1, 2, 3)", lambda x: x.expand(-1, 2, 3), X23),
    ("x.repeat(2)", lambda x: x.repeat(2), X23),
    ("x.repeat(2, -2)", lambda x: x.repeat(2, -2), X23),
    ("x.squeeze(1)", lambda x: x.squeeze(1), 2.0),
    ("x.movedim(0, 5)", lambda x: x.movedim(0, 5), X23),
    ("F.pad(x, (1, 2, 3))", lambda x: F.pad(x, (1, 2, 3)), X23),
    ("x.repeat_interleave(-1)", lambda x: x.repeat_interleave(-1), X23),
    ("x.narrow(1, 5, 1)", lambda x: x.narrow(1, 5, 1), X23),
    ("x.narrow(1, 1, 5)", lambda x: x.narrow(1, 1, 5), X23),
    ("x.repeat_interleave(2, dim=2)", lambda x: x.repeat_interleave(2, dim=2), X23),
    ("F.pad(x, (1, 1, 1, 1, 1, 1))", lambda x: F.pad(x, (1, 1, 1, 1, 1, 1)), X23),
    ("F.pad(x, (-2, -2))", lambda x: F.pad(x, (-2, -2)), X23),
    ("x.movedim((0, 0), (1, 0))", lambda x: x.movedim((0, 0), (1, 0)), X23),
    ("x.movedim((0, 1), (1,))", lambda x: x.movedim((0, 1), (1,)), X23),
    ("x.roll(1, (0, 1))", lambda x: x.roll(1, (0, 1)), X23),
    ("x.roll((1, 2))", lambda x: x.roll((1, 2)), X23),
    ("x.roll(1, 5)", lambda x: x.roll(1, 5), X23),
    # broadcasting: torch checks the last dim first, so that is the dim its message names
    ("(x.t() * x)", lambda x: x.t() * x, X23),
]


@pytest.mark.parametrize(("program", "function", "value"), ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_shapes_and_dims_are_torchs_errors(program, function, value):
    with pytest.raises(GradcliError) as ours:
        grad(f"{program}.sum()", at={"x": value})
    assert ours.value.message.split(": ", 1)[1] == _torch_error(function, value)


def test_a_missing_shape_is_torchs_message():
    with pytest.raises(GradcliError) as ours:
        grad("x.reshape().sum()", at={"x": X23})
    with pytest.raises(TypeError) as theirs:
        torch.tensor(X23).reshape()
    assert ours.value.message.endswith(str(theirs.value))


def _torch_hessian(function, value):
    return torch.autograd.functional.hessian(function, torch.tensor(value, dtype=torch.float64)).numpy()


HESSIANS = [
    ("sum(x.reshape(2, 3)**3)", lambda x: (x.reshape(2, 3) ** 3).sum(), [0.5, -1.0, 1.5, 2.0, -0.25, 0.75]),
    (
        "(x.expand(3, 2, 3).sin() * x.repeat(3, 1, 1)).sum()",
        lambda x: (x.expand(3, 2, 3).sin() * x.repeat(3, 1, 1)).sum(),
        X23,
    ),
    ("(x.permute(1, 0).exp() * x.t()).sum()", lambda x: (x.permute(1, 0).exp() * x.t()).sum(), X23),
    (
        "(x.unsqueeze(0).transpose(0, 2).squeeze() ** 3).mean()",
        lambda x: (x.unsqueeze(0).transpose(0, 2).squeeze() ** 3).mean(),
        X23,
    ),
    ("x.flatten().view(3, 2).clone().cos().sum()", lambda x: x.flatten().view(3, 2).clone().cos().sum(), X23),
]


@pytest.mark.parametrize(("program", "function", "value"), HESSIANS, ids=[h[0] for h in HESSIANS])
def test_hessians_equal_torchs(program, function, value):
    ours = hessian(program, at={"x": value}).hessian["x"]["x"]
    assert close(ours, _torch_hessian(function, value), rtol=1e-12, atol=1e-13)


def test_the_hessian_command_equals_torch(run):
    value = [0.5, -1.0, 1.5, 2.0, -0.25, 0.75]
    result = run("hessian", "sum(x.reshape(2, 3)**3)", "--at", f"x={value}", "--format", "json")
    assert result.exit_code == 0, result.stderr
    document = strict_loads(result.stdout)
    want = _torch_hessian(lambda x: (x.reshape(2, 3) ** 3).sum(), value)
    assert close(document["hessian"]["x"]["x"], want, rtol=1e-12)


def test_second_order_grad_equals_torchs_double_backward():
    result = grad("(x.reshape(1, 1).expand(2, 3) ** 3).sum()", at={"x": 0.7}, order=2)
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    (first,) = torch.autograd.grad((x.reshape(1, 1).expand(2, 3) ** 3).sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first, x)
    assert close(result.grads["x"], second.item(), rtol=1e-12)


def test_a_second_backward_needs_no_retain_graph_as_in_torch():
    """None of these ops saves a tensor, so torch runs a second pass without retain_graph."""
    program = "y = x.reshape(3, 2).permute(1, 0).expand(2, 2, 3).repeat(1, 2, 1); y.sum()"
    result = grad(program, at={"x": X23}, passes=2)
    x = torch.tensor(X23, dtype=torch.float64, requires_grad=True)
    out = x.reshape(3, 2).permute(1, 0).expand(2, 2, 3).repeat(1, 2, 1).sum()
    out.backward()
    out.backward()
    assert close(result.grads["x"], x.grad.numpy(), rtol=1e-15)


# ---- contiguity: each node knows its strides (ops/strides.py), as torch tracks them


def test_reshape_of_a_transpose_records_a_copy_as_torch_does():
    result = grad("x.t().reshape(-1).sum()", at={"x": X23})
    out = torch.tensor(X23, requires_grad=True).t().reshape(-1).sum()
    assert [n.grad_fn for n in result.nodes if n.kind == "op"] == torch_chain(out)


def test_view_of_a_transpose_is_torchs_error():
    with pytest.raises(GradcliError, match="view size is not compatible"):
        grad("x.t().view(-1).sum()", at={"x": X23})


# programs whose layout decides torch's nodes or error: transposes, permutes, expands, slices,
# elementwise results that keep a transposed layout, contiguous() copies
LAYOUTS = [
    "x.t().reshape(-1)",
    "x.t().flatten().sin()",
    "x.t().reshape(3, 2)",
    "x[0].expand(2, 3).reshape(-1)",
    "x.t().contiguous()",
    "x.contiguous()",
    "(x.t() + 1).reshape(-1)",
    "x[:, ::2].reshape(-1)",
    "x.t().unsqueeze(0).reshape(3, 2)",
    "(1 + x.t()).view(-1)",
    "x.t().contiguous().view(-1)",
    "x.t().view(3, 2)",
    "x.T.reshape(6).exp()",
    "x.transpose(0, 1).flatten()",
    "x.permute(1, 0).contiguous().view(-1)",
    "(x.t() * x.t()).view(-1)",
    "x.t().sin().view(-1)",
    "x.t().softmax(0).view(-1)",
    "x.t()[1:].reshape(-1)",
    "x.unsqueeze(0).transpose(0, 2).reshape(3, 2)",
    "y.permute(2, 0, 1).reshape(4, 6)",
    "y.permute(1, 2, 0).flatten(1)",
    "y.transpose(0, 1).view(3, 8)",
    "y[:, 1].reshape(-1)",
]


@pytest.mark.parametrize("program", LAYOUTS)
def test_layouts_decide_nodes_and_errors_as_in_torch(program):
    values = {"x": X23, "y": X234}
    used = {n: v for n, v in values.items() if n in program}
    leaves = {n: torch.tensor(v, dtype=torch.float64, requires_grad=True) for n, v in used.items()}
    try:
        out = eval(program, {}, leaves).sum()  # noqa: S307 - our own test programs, in torch
        theirs, error = torch_chain(out), None
    except RuntimeError as exc:
        theirs, error = None, str(exc).splitlines()[0]
    if error is not None:
        with pytest.raises(GradcliError) as ours:
            grad(f"({program}).sum()", at=used)
        assert ours.value.message.split(": ", 1)[1] == error
        return
    out.backward()
    result = grad(f"({program}).sum()", at=used)
    assert [n.grad_fn for n in result.nodes if n.grad_fn] == theirs
    for name, leaf in leaves.items():
        assert close(result.grads[name], leaf.grad.numpy())


def test_reshape_of_a_transpose_still_has_torchs_values_and_grads():
    result = grad("(x.t().reshape(-1) * w).sum()", at={"x": X23, "w": [1.0, 2, 3, 4, 5, 6]})
    x = torch.tensor(X23, dtype=torch.float64, requires_grad=True)
    w = torch.tensor([1.0, 2, 3, 4, 5, 6], dtype=torch.float64, requires_grad=True)
    out = (x.t().reshape(-1) * w).sum()
    out.backward()
    assert close(result.value, out.item(), rtol=1e-15)
    assert close(result.grads["x"], x.grad.numpy()) and close(result.grads["w"], w.grad.numpy())


def _strided_cases():
    """Tensors torch makes non-contiguous (permutes of 2-D and 3-D shapes) and shapes to view them as."""
    for shape in ((2, 3), (1, 3), (2, 3, 4), (2, 1, 3)):
        for order in itertools.permutations(range(len(shape))):
            base = torch.zeros(shape).permute(order)
            n = base.numel()
            targets = [(n,), (-1, shape[0]), tuple(base.shape), (*base.shape, 1), (1, *base.shape)]
            targets += [tuple(base.shape[:-2]) + (base.shape[-2] * base.shape[-1],)] if base.dim() > 1 else []
            for target in targets:
                yield base, target


@pytest.mark.parametrize("index", range(len(list(_strided_cases()))))
def test_view_strides_decides_as_torch_does(index):
    """The stride check the engine would need (torch's computeStride), against torch's view."""
    base, target = list(_strided_cases())[index]
    size = tuple(base.shape)
    resolved = tuple(base.numel() // -np.prod(target) if t == -1 else t for t in target)
    mine = view_strides(size, tuple(base.stride()), resolved)
    try:
        theirs = tuple(base.view(target).stride())
    except RuntimeError as error:
        assert "view size is not compatible" in str(error)
        theirs = None
    assert mine == theirs


@pytest.mark.parametrize(
    "program, shapes",
    [
        ("(A @ B).sum()", {"A": (2, 3, 4), "B": (2, 4, 5)}),
        ("(A @ W).sum()", {"A": (2, 3, 4), "W": (4, 5)}),
        ("(torch.bmm(A, B) * 2).sum()", {"A": (2, 3, 4), "B": (2, 4, 5)}),
        ("(A.bmm(B) ** 2).sum()", {"A": (2, 3, 4), "B": (2, 4, 5)}),
    ],
)
def test_batched_products_record_torchs_nodes_and_gradients(program, shapes):
    """A @ B of 3-D tensors is at::matmul's expand, view, bmm and _unsafe_view; A @ W folds
    the batch into the rows of one mm; torch.bmm is one BmmBackward0."""
    rng = np.random.default_rng(4)
    values = {name: rng.uniform(-1, 1, shape) for name, shape in shapes.items()}
    result = grad(program, at=values, symbolic=False)
    tensors = {name: torch.tensor(v, requires_grad=True) for name, v in values.items()}
    out = eval(program, {"torch": torch, **tensors})  # the program is ours, a fixed literal
    out.backward()
    assert [n["grad_fn"] for n in result.to_dict()["nodes"] if n["grad_fn"]] == _torch_chain(out.grad_fn)
    for name, tensor in tensors.items():
        np.testing.assert_allclose(result.grads[name], tensor.grad.numpy(), rtol=1e-12, atol=1e-12)


def _torch_chain(fn) -> list[str]:
    """The grad_fn names of a graph in gradcli's topological order (operands before users)."""
    seen: list = []

    def visit(node):
        if node is None or node.name() == "torch::autograd::AccumulateGrad" or node in seen:
            return
        for child, _ in node.next_functions:
            visit(child)
        seen.append(node)

    visit(fn)
    return [n.name() for n in seen]
