"""NumPy in `gradcli run` (issue 28): what the tutorial scripts in tests/scripts/tut_numpy_*.py
do not show by their printout alone. Those scripts print torch's bytes (tests/test_run.py);
these tests check that memory is shared where torch shares it, that NumPy's own generator
draws, and that an unseeded draw is said once on stderr."""

from __future__ import annotations

import numpy as np
import pytest

SHARED = """import numpy as np
import torch
a = np.zeros(3)
t = torch.from_numpy(a)
a[0] = 1.0
t[1] = 2.0
t.add_(1)
a += 10
print(t.tolist(), a.tolist())
copied = torch.tensor(a)
a[2] = -5.0
print(copied.tolist(), t.tolist())
"""


def test_from_numpy_and_numpy_share_memory_and_tensor_copies(run):
    result = run("run", "-", input=SHARED)
    assert result.exit_code == 0, result.stderr
    shared, after = result.stdout.splitlines()
    a = np.zeros(3)
    a[0] = 1.0
    a[1] = 2.0
    a += 1
    a += 10
    assert shared == f"{a.tolist()} {a.tolist()}"
    copied = a.copy()
    a[2] = -5.0
    assert after == f"{copied.tolist()} {a.tolist()}"


def test_an_array_shared_after_an_op_recorded_the_tensor_still_sees_updates(run):
    script = """import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w * w).sum().backward()
view = w.detach().numpy()
with torch.no_grad():
    w -= 0.5 * w.grad
print(view.tolist(), w.tolist())
(w * w).sum().backward()
print(w.grad.tolist())
"""
    result = run("run", "-", input=script)
    assert result.exit_code == 0, result.stderr
    first, grads = result.stdout.splitlines()
    assert first == "[0.0, 0.0] [0.0, 0.0]"  # w - 0.5 * 2w: the array follows the tensor
    assert grads == "[2.0, 4.0]"  # the first backward's 2w, accumulated with the new 2 * 0


@pytest.mark.parametrize("seeded", [True, False])
def test_numpy_draws_are_numpys_and_unseeded_ones_are_said_once(run, seeded):
    seed = "np.random.seed(5)\n" if seeded else ""
    script = (
        f"import numpy as np\n{seed}print(np.random.rand(3).tolist())\nprint(np.random.randn(2).tolist())\n"
    )
    first = run("run", "-", input=script)
    second = run("run", "-", input=script)
    assert first.exit_code == 0 and second.exit_code == 0
    notes = [line for line in first.stderr.splitlines() if "unseeded random numbers" in line]
    if seeded:
        state = np.random.RandomState(5)
        assert first.stdout == f"{state.rand(3).tolist()}\n{state.randn(2).tolist()}\n"
        assert first.stdout == second.stdout and notes == []
    else:
        assert first.stdout != second.stdout
        assert len(notes) == 1 and "np.random.seed(n)" in notes[0] and "line 2" in notes[0]


def test_unseeded_torch_draws_are_said_once_and_seeded_ones_not_at_all(run):
    unseeded = run("run", "-", input="import torch\nx = torch.rand(2)\ny = torch.randn(2)\nprint(x.shape)\n")
    assert unseeded.stdout == "torch.Size([2])\n"
    notes = [line for line in unseeded.stderr.splitlines() if "unseeded" in line]
    assert len(notes) == 1 and "torch.manual_seed(n)" in notes[0]
    seeded = run("run", "-", input="import torch\ntorch.manual_seed(0)\nx = torch.rand(2)\nprint(x.shape)\n")
    assert seeded.stderr == ""


def test_numpy_functions_refuse_tensors_and_strings_with_one_line(run):
    for line, words in [
        ("np.sin(torch.ones(2))", "call .numpy() on the tensor"),
        ("np.full(3, 'abc')", "not a NumPy dtype of numbers"),
        ("np.ones(3).astype('U10')", "not a NumPy dtype of numbers"),
    ]:
        result = run("run", "-", input=f"import numpy as np\nimport torch\nx = {line}\n")
        assert result.exit_code == 1
        assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
