"""Random tensors in `gradcli run`: torch.manual_seed, rand, randn, rand_like, randn_like, randint.

The numbers are torch's own (gradcli models torch's CPU generator bit for bit; tests/test_torch_random.py
compares the generator, tests/test_run_nn.py seeded scripts): these tests check what follows from
them, that gradients of random tensors are torch's and that seeds repeat.
"""

from __future__ import annotations

import ast

import numpy as np
import torch
from torch_server import run_under_torch

TRAINING_STEP = """import torch
import torch.nn.functional as F
torch.manual_seed(SEED)
w = torch.randn(3, 2, requires_grad=True)
x = torch.rand(4, 3)
y = torch.randint(0, 2, (4,))
loss = F.cross_entropy(x @ w, y)
loss.backward()
print(w.tolist())
print(x.tolist())
print(y.tolist())
print(w.grad.tolist())
"""


def _lists(result) -> list:
    assert result.exit_code == 0, result.stderr
    return [ast.literal_eval(line) for line in result.stdout.splitlines()]


def test_gradients_of_random_tensors_are_torchs_on_the_same_values(run):
    w, x, y, grad = _lists(run("run", "-", input=TRAINING_STEP.replace("SEED", "7")))
    tw = torch.tensor(w, requires_grad=True)
    loss = torch.nn.functional.cross_entropy(torch.tensor(x) @ tw, torch.tensor(y))
    loss.backward()
    np.testing.assert_allclose(grad, tw.grad.numpy(), rtol=1e-6, atol=1e-7)
    assert all(0 <= v < 1 for row in x for v in row) and set(y) <= {0, 1}


def test_a_seed_gives_the_same_numbers_and_another_seed_others(run):
    first = _lists(run("run", "-", input=TRAINING_STEP.replace("SEED", "7")))
    again = _lists(run("run", "-", input=TRAINING_STEP.replace("SEED", "7")))
    other = _lists(run("run", "-", input=TRAINING_STEP.replace("SEED", "8")))
    assert first == again and first[0] != other[0]


def test_shapes_dtypes_and_flags_print_as_torchs(run):
    script = (
        "import torch\ntorch.manual_seed(0)\n"
        "a = torch.randn(2, 3, requires_grad=True)\nb = torch.rand(5, dtype=torch.float64)\n"
        "c = torch.randn_like(a)\nd = torch.rand_like(b)\ne = torch.randint(10, (2, 2))\n"
        "print(a.shape, a.dtype, a.requires_grad, a.is_leaf)\nprint(b.shape, b.dtype)\n"
        "print(c.shape, c.requires_grad, d.dtype, e.dtype, e.shape)\n"
    )
    theirs = run_under_torch(script)
    assert theirs.returncode == 0, theirs.stderr
    ours = run("run", "-", input=script)
    assert ours.exit_code == 0, ours.stderr
    assert ours.stdout == theirs.stdout
