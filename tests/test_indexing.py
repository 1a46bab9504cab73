"""Indexing and slicing as PyTorch records them (issue 13): values, grads and grad_fn nodes vs torch."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gradcli import GradcliError, grad  # noqa: E402

X = (np.arange(12.0).reshape(3, 4) - 5) / 7


def grad_fn_names(fn) -> list[str]:
    """Every node torch recorded below `fn`, leaves excluded, sorted (a multiset to compare)."""
    names, stack, seen = [], [fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen or "AccumulateGrad" in node.name():
            continue
        seen.add(id(node))
        names.append(node.name())
        stack.extend(next_fn for next_fn, _ in node.next_functions)
    return sorted(names)


@pytest.mark.parametrize(
    ("program", "function"),
    [
        ("x[0].sum()", lambda x: x[0].sum()),
        ("x[-1, -2]", lambda x: x[-1, -2]),
        ("x[0][1]", lambda x: x[0][1]),
        ("x[:, 1].sum()", lambda x: x[:, 1].sum()),
        ("(x[-1] * x[1:3]).sum() + x[:, 1].sum()", lambda x: (x[-1] * x[1:3]).sum() + x[:, 1].sum()),
        ("x[0, 1:3].sum()", lambda x: x[0, 1:3].sum()),
        ("(x[::2] ** 2).sum()", lambda x: (x[::2] ** 2).sum()),
        ("x[:].sum()", lambda x: x[:].sum()),
        ("x[..., 0].sum()", lambda x: x[..., 0].sum()),
        ("x[..., 1:3, 0].sum()", lambda x: x[..., 1:3, 0].sum()),
        ("(x[[0, 2, 2]] * 3).sum()", lambda x: (x[[0, 2, 2]] * 3).sum()),
        ("x[:, [1, 0, 1]].exp().sum()", lambda x: x[:, [1, 0, 1]].exp().sum()),
        ("x[range(3), [0, 1, 2]].sum()", lambda x: x[range(3), [0, 1, 2]].sum()),
        ("(x[1:, [1, 2]] ** 2).sum()", lambda x: (x[1:, [1, 2]] ** 2).sum()),
        ("x[0, [1, 2]].sum()", lambda x: x[0, [1, 2]].sum()),
    ],
)
def test_indexing_agrees_with_torch(program, function):
    result = grad(program, at={"x": X})
    leaf = torch.tensor(X, requires_grad=True)
    out = function(leaf)
    out.backward()
    np.testing.assert_allclose(result.value, out.item(), rtol=1e-13)
    np.testing.assert_allclose(result.grads["x"], leaf.grad.numpy(), rtol=1e-14, atol=0)
    assert sorted(n.grad_fn for n in result.nodes if n.grad_fn) == grad_fn_names(out.grad_fn)


def test_an_integer_const_indexes_like_a_long_tensor():
    # d2l's pick of the predicted probabilities of the true classes
    probabilities = [[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]]
    result = grad("-log(y_hat[[0, 1], y]).mean()", at={"y_hat": probabilities}, const={"y": [0, 2]})
    y_hat = torch.tensor(probabilities, dtype=torch.float64, requires_grad=True)
    out = -torch.log(y_hat[[0, 1], torch.tensor([0, 2])]).mean()
    out.backward()
    np.testing.assert_allclose(result.grads["y_hat"], y_hat.grad.numpy(), rtol=1e-15)
    assert result.output.grad_fn == out.grad_fn.name()


@pytest.mark.parametrize(
    ("program", "const", "torch_call"),
    [
        ("x[5]", {}, lambda x: x[5]),
        ("x[:, 7]", {}, lambda x: x[:, 7]),
        ("x[[0, 9]]", {}, lambda x: x[[0, 9]]),
        ("x[y]", {"y": [1, 3]}, lambda x: x[torch.tensor([1, 3])]),
        # torch names the index's place in the subscript, or the index tensor's place among
        # the index tensors, not the dim of the select it turns into
        ("x[0, 5]", {}, lambda x: x[0, 5]),
        ("x[None, 1, -5]", {}, lambda x: x[None, 1, -5]),
        ("x[..., 0, 5]", {}, lambda x: x[..., 0, 5]),
        ("x[:, [1, 9, -8]]", {}, lambda x: x[:, [1, 9, -8]]),
        ("x[[0, 1], y]", {"y": [5, 0]}, lambda x: x[[0, 1], torch.tensor([5, 0])]),
        ("x[:, :, 0]", {}, lambda x: x[:, :, 0]),
        ("x[0, 1:2, 5]", {}, lambda x: x[0, 1:2, 5]),
    ],
)
def test_out_of_range_indices_are_torchs_error(program, const, torch_call):
    with pytest.raises(IndexError) as torch_error:
        torch_call(torch.tensor(X))
    with pytest.raises(GradcliError) as ours:
        grad(program, at={"x": X}, const=const)
    assert str(torch_error.value) in str(ours.value)


def test_a_fractional_index_tensor_is_refused():
    with pytest.raises(GradcliError, match="tensors used as indices must be long"):
        grad("x[y].sum()", at={"x": X}, const={"y": [0.5]})


@pytest.mark.parametrize("program", ["x[::0]", "x[::-1]", "x[..., ...]", "x[1.5]", "x['a']"])
def test_impossible_subscripts_are_one_clear_error(run, program):
    result = run("grad", f"{program}.sum()", "--at", "x=[1,2,3]")
    assert result.exit_code == 1 and result.stderr.startswith("error: column")
    assert result.stderr.count("\n") == 1


def _first_chain(fn) -> list[str]:
    """torch's nodes from the output down through each node's first input: one indexing's steps."""
    names = []
    while fn is not None and "AccumulateGrad" not in fn.name():
        names.append(fn.name())
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


@pytest.mark.parametrize(
    "subscript",
    [
        "[:, None]",
        "[None]",
        "[0, None]",
        "[None, 0]",
        "[..., None]",
        "[..., None, 1]",
        "[None, ..., 1:3]",
        "[:, None, 1:3]",
        "[None, :, [0, 2]]",
        "[None, None]",
        "[0, :, None, 1]",
        "[:, None, [1, 0]]",
        "[[1, 0], None]",
        "[1:, None]",
    ],
)
def test_none_adds_an_axis_where_torch_does(subscript):
    """x[:, None] is torch's unsqueeze, recorded in order with the selects and slices around it."""
    cube = np.arange(24.0).reshape(2, 3, 4) / 10 - 1
    weights = np.linspace(-1, 1, 24)
    leaf = torch.tensor(cube, requires_grad=True)
    picked = eval(f"x{subscript}", {"x": leaf})
    out = (picked * torch.tensor(weights[: picked.numel()]).reshape(picked.shape)).sum()
    out.backward()
    program = f"y = x{subscript}; (y * w.reshape(y.shape)).sum()"
    result = grad(program, at={"x": cube}, const={"w": weights[: picked.numel()].tolist()})
    y = next(n for n in result.nodes if n.name == "y")
    assert y.shape == tuple(picked.shape)
    np.testing.assert_allclose(result.grads["x"], leaf.grad.numpy(), rtol=1e-14, atol=0)
    chain, node = [], y
    by_name = {n.name: n for n in result.nodes}
    while node.grad_fn is not None:
        chain.append(node.grad_fn)
        node = by_name[node.inputs[0]]
    assert chain == _first_chain(picked.grad_fn)


def test_gathered_rows_scatter_back_in_torchs_order_bit_for_bit():
    """x[idx] with repeated and negative rows: the gradient adds each row's terms in index
    order (one bincount for float64), as torch's serial accumulate does."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((50, 3))
    idx = rng.integers(-50, 50, 400)
    w = rng.standard_normal((400, 3)) * 10.0 ** rng.integers(-6, 6, (400, 3))
    result = grad("(x[idx] * w).sum()", at={"x": x}, const={"idx": idx, "w": w}, symbolic=False)
    leaf = torch.tensor(x, requires_grad=True)
    (leaf[torch.tensor(idx)] * torch.tensor(w)).sum().backward()
    assert np.array_equal(result.grads["x"], leaf.grad.numpy())
