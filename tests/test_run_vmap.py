"""torch.func.vmap in `run`: the script's function mapped over a dimension, with in_dims and
out_dims, tuples of outputs, per-sample gradients (vmap of grad) and torch's errors; a result
whose grad_fn gradcli cannot name as torch's batched graph does is refused in one line."""

from __future__ import annotations

import pytest
from oracle import torch_stdouts
from script_run import run_script

_HEAD = "import torch\nfrom torch.func import vmap, grad\ntorch.manual_seed(0)\n"

CASES = {
    "dot, tuples, in_dims and out_dims": """
x = torch.randn(4, 3)
y = torch.randn(4, 3)
print(vmap(torch.dot)(x, y))
def f(a, b):
    return (a * b).sum(), a.sin()
print(vmap(f)(x, y))
print(vmap(f, in_dims=(0, None))(x, y[0]))
print(vmap(lambda r: r.sum(), in_dims=1)(x))
print(vmap(torch.outer, out_dims=1)(x, y))
print(vmap(vmap(torch.mul))(x, y))
""",
    "per-sample gradients": """
w = torch.randn(3, requires_grad=True)
x = torch.randn(5, 3)
y = torch.randn(5)
def loss(w, xi, yi):
    return ((xi * w).sum() - yi) ** 2
per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(w, x, y)
print(per_sample.detach(), per_sample.shape)
print(torch.allclose(per_sample.sum(0), grad(lambda w: sum(loss(w, x[i], y[i]) for i in range(5)))(w)))
""",
    "outputs and dims as torch checks them": """
x = torch.ones(2, 3)
def t(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
def f(a):
    return a
t(lambda: vmap(lambda a: 3.0)(x))
t(lambda: vmap(lambda a: a, in_dims=None)(x))
t(lambda: vmap(lambda a: a, in_dims=0.5)(x))
t(lambda: vmap(lambda a: a, in_dims=(0, 0))(x))
t(lambda: vmap(f, out_dims=(0, 0))(x))
t(lambda: vmap(f, in_dims=[0])(x))
t(lambda: vmap(f, out_dims=None)(torch.randn(2, 3)))
t(lambda: vmap(lambda a: [a, a.sum()])(x))
t(lambda: vmap(lambda a: {"s": a.sum()})(x))
t(lambda: vmap(lambda a: (a, a * 2), out_dims=(0, 1))(x))
t(lambda: vmap(lambda a, b: a + b, in_dims=(None, None))(x, x))
""",
    "torch's errors": """
x = torch.randn(4, 3)
for call in [lambda: vmap(torch.dot)(x, torch.randn(5, 3)),
             lambda: vmap(torch.sin, in_dims=2)(x),
             lambda: vmap(lambda a, b: a * b, in_dims=(0, 0))(x, 2.0),
             lambda: vmap(lambda t: t + torch.rand(3))(x),
             lambda: vmap(torch.sin, randomness='sometimes')(x)]:
    try:
        call()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
""",
}


def _scripts() -> list[str]:
    return [_HEAD + text for text in CASES.values()]


@pytest.fixture(scope="module")
def torch_outputs() -> list[str]:
    return torch_stdouts(_scripts())


@pytest.mark.parametrize("index", range(len(CASES)), ids=list(CASES))
def test_vmap_prints_and_fails_as_torch(index, torch_outputs):
    script, theirs = _scripts()[index], torch_outputs[index]
    ours = run_script(script)
    assert ours.error is None, f"{script}\n{ours.error}"
    assert ours.stdout == theirs, script


def test_a_vmap_result_that_requires_grad_does_not_show_a_grad_fn_torch_would_not():
    script = (
        _HEAD
        + "w = torch.randn(3, requires_grad=True)\nx = torch.randn(4, 3)\nprint(vmap(lambda r: r * w)(x))\n"
    )
    ours = run_script(script)
    assert ours.error is not None and "vmap result that requires grad" in ours.error
    same = run_script(
        _HEAD
        + "w = torch.randn(3, requires_grad=True)\nx = torch.randn(4, 3)\nvmap(lambda r: r * w)(x).sum().backward()\nprint(w.grad)\n"
    )
    assert same.error is None and same.stdout.startswith("tensor([")


def test_vmap_over_an_empty_dimension_is_refused_in_one_line():
    ours = run_script(_HEAD + "print(vmap(lambda a: a)(torch.ones(0, 3)))\n")
    assert ours.error is not None and "size 0 is not supported" in ours.error
