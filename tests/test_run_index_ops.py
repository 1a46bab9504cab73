"""index_add_/index_copy_/index_fill_ (and their out-of-place forms) and torch.unique in `gradcli run`,
against torch: printed values, grads of the written tensor and the source, grad_fn chains through
next_functions, version counters, and torch's errors (caught by the script, so each is its class
and text). A seeded batch of random calls covers dims, shapes, repeated and bad indices."""

from __future__ import annotations

import random
import re

import pytest
from oracle import torch_stdouts
from script_run import run_script

_ADDRESS = re.compile(r" at 0x[0-9a-f]+")

_CHAIN = """
def chain(fn, depth=0):
    if fn is None or depth > 4:
        return
    print(' ' * depth + fn.name())
    for nxt, _ in fn.next_functions:
        chain(nxt, depth + 1)
def attempt(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
"""

FIXED = [
    """
x = torch.zeros(3, 2, requires_grad=True)
y = x * 1
s = torch.ones(2, 2, requires_grad=True)
r = y.index_add_(0, torch.tensor([0, 2]), s, alpha=2)
print(r is y, y._version, y)
chain(y.grad_fn)
(y * y).sum().backward()
print(x.grad, s.grad)
""",
    """
x = torch.arange(6.).reshape(3, 2).requires_grad_()
s = torch.ones(2, 2, requires_grad=True)
z = x * 2
v = z[1:]
v.index_copy_(1, torch.tensor([1]), s[:, :1] * 3)
print(z, z._version, v._version)
chain(z.grad_fn)
chain(v.grad_fn)
z.pow(2).sum().backward()
print(x.grad, s.grad)
""",
    """
w = torch.tensor(5., requires_grad=True)
q = torch.zeros(4)
q.index_fill_(0, torch.tensor([1, 3, 1]), w)
print(q, q._version)
chain(q.grad_fn)
q.sum().backward()
print(w.grad)
x = torch.ones(2, 3, requires_grad=True)
y = torch.index_fill(x, 1, torch.tensor([-1]), 2.5)
chain(y.grad_fn)
(y * torch.arange(6.).reshape(2, 3)).sum().backward()
print(y, x.grad)
""",
    """
torch.manual_seed(3)
x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
s = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
a = torch.index_add(x, 0, torch.tensor([3, 3]), s, alpha=-0.5)
b = x.index_copy(0, torch.tensor([2, 0]), s)
c = x.index_select(1, torch.tensor([2, 0, 2]))
(a.sin().sum() + b.exp().sum() + c.pow(3).sum()).backward()
print(a, b, c)
chain(a.grad_fn); chain(b.grad_fn); chain(c.grad_fn)
print(x.grad, s.grad)
""",
    """
u = torch.tensor([3., 1., 3., 2., float('nan')], requires_grad=True)
print(torch.unique(u))
print(torch.unique(u, return_inverse=True, return_counts=True))
print(u.unique(sorted=False, return_counts=True))
m = torch.tensor([[1, 2], [1, 2], [0, 5]])
print(torch.unique(m, dim=0, return_inverse=True, return_counts=True))
print(m.unique(True, True, True, 1))
print(torch.unique(torch.tensor(3.), return_inverse=True))
print(torch.unique(torch.tensor([True, False, True]), return_counts=True))
print(torch.unique(torch.zeros(0, 3), dim=0, return_inverse=True, return_counts=True))
print(torch.unique(torch.tensor([[2., 1.]], requires_grad=True), dim=1, return_inverse=True))
v = torch.unique(u)
print(v.requires_grad, v.grad_fn.next_functions[0][0].variable is u)
with torch.no_grad():
    print(torch.unique(u))
attempt(lambda: torch.unique(u).sum().backward())
attempt(lambda: torch.unique(m.float().requires_grad_(), dim=0).sum().backward())
attempt(lambda: torch.unique(m, 0))
attempt(lambda: torch.unique(m, dim=2))
attempt(lambda: torch.unique(torch.tensor(3.), dim=0))
attempt(lambda: m.unique(foo=1))
attempt(lambda: torch.unique(m, foo=1))
attempt(lambda: torch.unique(m, return_inverse=1))
attempt(lambda: torch.unique(m, sorted=1, dim=0))
attempt(lambda: torch.unique(torch.zeros(0, 3), dim=1))
""",
    """
i = torch.tensor([1, 0])
attempt(lambda: torch.zeros(3, 2, requires_grad=True).index_add_(0, i, torch.ones(2, 2)))
attempt(lambda: torch.zeros(3, 2).index_add_(0, torch.tensor([5, 0]), torch.ones(2, 2)))
attempt(lambda: torch.zeros(3, 2).index_add_(0, torch.tensor([-1, 0]), torch.ones(2, 2)))
attempt(lambda: torch.zeros(3, 2).index_copy_(0, torch.tensor([5, 0]), torch.ones(2, 2)))
attempt(lambda: torch.zeros(3, 2).index_fill_(0, torch.tensor([-4]), 1.))
attempt(lambda: torch.zeros(3, 2).index_copy_(0, i.int(), torch.ones(2, 2)))
attempt(lambda: torch.zeros(3, 2).index_fill(0, i.int(), 1.))
attempt(lambda: torch.zeros(3, 2).index_add(0, i.float(), torch.ones(2, 2)))
attempt(lambda: torch.zeros(3, 2).index_copy(0, i.float(), torch.ones(2, 2)))
attempt(lambda: torch.zeros(3, 2).index_fill(0, i.float(), 1.))
attempt(lambda: torch.zeros(3, 2).index_add(0, i, torch.ones(2, 2).double()))
attempt(lambda: torch.index_add(torch.zeros(3, 2), 0, i, torch.ones(2, 2).long()))
attempt(lambda: torch.index_copy(torch.zeros(3, 2).long(), 0, i, torch.ones(2, 2)))
attempt(lambda: torch.zeros(3, 2).index_fill_(0, torch.tensor([[1, 0]]), 1.))
attempt(lambda: torch.zeros(3, 2).index_add_(0, torch.tensor([[1, 0]]), torch.ones(2, 2)))
attempt(lambda: torch.zeros(3, 2).index_copy_(0, torch.tensor([[1, 0]]), torch.ones(2, 2)))
attempt(lambda: torch.zeros(3, 2).index_fill_(5, i, 1.))
attempt(lambda: torch.zeros(3, 2).index_fill_(2**40, i, 1.))
attempt(lambda: torch.zeros(3, 2).index_add_(0, i, torch.ones(3, 2)))
attempt(lambda: torch.zeros(3, 2).index_add_(0, i, torch.ones(2, 3)))
attempt(lambda: torch.zeros(3, 2).index_add_(1, torch.tensor([1]), torch.ones(3)))
attempt(lambda: torch.zeros(3, 2).index_copy_(0, i, torch.ones(2, 3)))
attempt(lambda: torch.zeros(3, 2).index_copy_(0, torch.tensor([1]), torch.ones(2)))
attempt(lambda: torch.zeros(3, 2).index_add_(0, torch.tensor([10**12]), torch.ones(1, 2)))
attempt(lambda: torch.zeros(3, 2).index_fill(0, i, torch.tensor([1., 2.])))
attempt(lambda: torch.zeros(3, 2).index_select(0, torch.tensor([3])))
attempt(lambda: torch.zeros(3, 2).long().index_fill(0, i, 2.7))
attempt(lambda: torch.zeros(3).index_copy(0, torch.tensor(1), torch.tensor(5.)))
attempt(lambda: torch.zeros(()).index_add(0, torch.tensor([0]), torch.tensor(5.)))
""",
]


def _random_script(seed: int) -> str:
    r = random.Random(seed)
    rows, cols = r.randint(1, 4), r.randint(1, 4)
    dim = r.choice([0, 1, -1, -2])
    size = (rows, cols)[dim % 2]
    count = r.randint(0, 4)
    index = [r.randint(-1, size) if r.random() < 0.15 else r.randrange(size) for _ in range(count)]
    source = [rows, cols]
    source[dim % 2] = count if r.random() < 0.85 else count + 1
    op = r.choice(["index_add", "index_copy", "index_fill", "index_add_", "index_copy_", "index_fill_"])
    view = op.endswith("_") and r.random() < 0.4
    if op.startswith("index_copy"):
        index = list(dict.fromkeys(index))  # torch leaves which of repeated writes wins unspecified
        source[dim % 2] = len(index)
    if op.startswith("index_fill"):
        arg = r.choice(["2.5", "w", "-1"])
    else:
        arg = f"s{', alpha=1.5' if op.startswith('index_add') and r.random() < 0.5 else ''}"
    target = "y[:]" if view else "y"
    return f"""
torch.manual_seed({seed})
x = torch.randn({rows}, {cols}, requires_grad=True)
s = torch.randn({source[0]}, {source[1]}, requires_grad=True)
w = torch.tensor(0.75, requires_grad=True)
y = x * 1
try:
    out = {target}.{op}({dim}, torch.tensor({index}, dtype=torch.int64), {arg})
    print(out, y._version)
    chain(out.grad_fn)
    chain(y.grad_fn)
    (y.exp().sum() + out.pow(2).sum()).backward()
    print(x.grad, s.grad, w.grad)
except Exception as e:
    print(type(e).__name__, e)
"""


# Indexing keys of one form, again and again (a loop): an index's plan is kept by the key's
# form (its numbers, slices and where its tensors sit), so each must still pick its own values.
FIXED.append(
    """
x = torch.arange(24.0).reshape(4, 6).requires_grad_()
p, q = torch.tensor([3, 0]), torch.tensor([1, 5])
for key in [1, 2, -1]:
    print(x[key], x[:, key], x[key, 1:4:2])
print(x[p, q], x[q % 4, p], x[[0, 2], q], x[[1, 3], p])
print(x[p][:, q], x[None, p, 1:].shape)
P = torch.tensor([[3, 0], [1, 1]])
print(x[P, 2:], x[1:, P], x[P])
for start in range(3):
    print(x[start:start + 2, p % 6].sum())
(x[p, q].sum() + x[q % 4, p].pow(2).sum()).backward()
print(x.grad)
attempt(lambda: x[p, 9])
attempt(lambda: x[5])
"""
)
RANDOM = [_random_script(seed) for seed in range(60)]
SCRIPTS = ["import torch\n" + _CHAIN + body for body in FIXED + RANDOM]


@pytest.fixture(scope="module")
def torch_outputs() -> list[str]:
    return torch_stdouts(SCRIPTS)


@pytest.mark.parametrize("k", range(len(SCRIPTS)))
def test_prints_as_torch(k, torch_outputs):
    ours = run_script(SCRIPTS[k])
    assert ours.error is None, f"{SCRIPTS[k]}\n{ours.error}"
    assert "!" not in torch_outputs[k], torch_outputs[k]
    assert _ADDRESS.sub("", ours.stdout) == _ADDRESS.sub("", torch_outputs[k]), SCRIPTS[k]
