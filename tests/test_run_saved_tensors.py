"""What a grad_fn saves, as torch 2.13 shows it: `_saved_self`, `_saved_other`,
`_saved_result` and the other `_saved_*` values, and the hooks torch calls on saved
tensors (`torch.autograd.graph.saved_tensors_hooks`, `_raw_saved_*.register_hooks`)."""

from __future__ import annotations

import os
import pprint
import re
from pathlib import Path

import pytest
from oracle import assert_prints_as_torch, torch_stdouts
from saved_probe import probe
from script_run import run_script

from gradcli.script import saved_table

_TABLE = Path(saved_table.__file__)
_HEADER = '''"""What torch 2.13 saves for each grad_fn: its saved tensors in the order its pack hooks see
them, each with the source gradcli reads it from (an operand's position or "result"; "?" is a
tensor torch makes inside the op) and the operands whose gradients need it (torch saves it
only when one of them requires grad); then its other `_saved_*` values and their Python kinds.

Written by tests/test_run_saved_tensors.py from torch itself
(GRADCLI_REGEN_GOLDEN=1 python -m pytest tests/test_run_saved_tensors.py); do not edit."""

from __future__ import annotations

'''


def test_the_saved_table_is_torchs():
    found = probe()
    if os.environ.get("GRADCLI_REGEN_GOLDEN"):
        text = _HEADER + "SAVED = " + pprint.pformat(found, width=110, sort_dicts=True) + "\n"
        _TABLE.write_text(text)
    assert found == saved_table.SAVED


_HEAD = "import torch\nimport torch.nn.functional as F\ntorch.manual_seed(0)\n"
CASES = {
    "the docs' saved tensors": """
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self), x is y.grad_fn._saved_self, y.grad_fn._saved_exponent)
x = torch.randn(5, requires_grad=True)
y = x.exp()
print(y.equal(y.grad_fn._saved_result), y is y.grad_fn._saved_result, y.grad_fn._saved_result)
""",
    "saved only when needed": """
x = torch.randn(3, requires_grad=True)
w = torch.randn(3)
m = x * w
print(m.grad_fn._saved_other is w, m.grad_fn._saved_self)
print((x * 2).grad_fn._saved_other, (x * 2.5).grad_fn._saved_other)
A = torch.randn(2, 3, requires_grad=True)
B = torch.randn(3, 4)
print((A @ B).grad_fn._saved_self, (A @ B).grad_fn._saved_mat2 is B)
""",
    "other saved values": """
x = torch.randn(2, 3, requires_grad=True)
print(x.sum(-1).grad_fn._saved_dim, x.softmax(-1).grad_fn._saved_dim, x.sum().grad_fn._saved_self_sym_sizes)
print(x.transpose(0, 1).grad_fn._saved_dim0, x.mean(0).grad_fn._saved_self_sym_numel)
print(F.leaky_relu(x, 0.2).grad_fn._saved_negative_slope, x.pow(2.5).grad_fn._saved_exponent)
""",
    "freed by backward": """
x = torch.randn(3, requires_grad=True)
y = x.sin()
z = y.sum()
z.backward(retain_graph=True)
print(y.grad_fn._saved_self is x)
y = x.sin()
y.sum().backward()
print(y.grad_fn._saved_self)
""",
    "the tutorial's pack and unpack": """
def pack_hook(x):
    print("Packing", x)
    return x

def unpack_hook(x):
    print("Unpacking", x)
    return x

a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
print(a.grad, b.grad)
""",
    "hooks that keep saved tensors elsewhere": """
storage = []

def pack(x):
    storage.append(x.clone())
    return len(storage) - 1

def unpack(i):
    print("unpack", i)
    return storage[i]

x = torch.randn(4, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x.exp() * x.sin()
print(len(storage), y.grad_fn._saved_self)
y.sum().backward()
print(x.grad)
""",
    "a raw saved tensor's hooks": """
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 1, lambda t: t)
print(y.grad_fn._saved_self.equal(x))
y.sum().backward()
print(x.grad)
""",
    "ops inside a pack hook save without hooks": """
def pack(x):
    print("pack", x.shape)
    return x.sin()

a = torch.ones(3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
    y = a.cos()
print(y)
""",
    "hooks run without grad and without hooks": """
def pack(t):
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        return t.sin() * 0 + t

x = torch.ones(3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    y = (x * x).sum()
print(y)

def pack_and_backward(t):
    try:
        (t * 2).sum().backward()
    except RuntimeError as e:
        print(e)
    return t

with torch.autograd.graph.saved_tensors_hooks(pack_and_backward, lambda t: t):
    z = (x * x).sum()
y = x.exp()
y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
try:
    y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
except RuntimeError as e:
    print(e)
try:
    print(x.grad_fn, y.grad_fn.next_functions[0][0]._saved_self)
except AttributeError as e:
    print(e)
""",
    "an unpack hook must give a tensor": """
x = torch.randn(3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: 1, lambda t: t):
    y = x.sin()
y.sum().backward()
""",
}


def _scripts() -> list[str]:
    return [_HEAD + text for text in CASES.values()]


@pytest.fixture(scope="module")
def torch_outputs() -> list[str]:
    return torch_stdouts(_scripts())


_ADDRESS = re.compile(r"0x[0-9a-f]+")


@pytest.mark.parametrize("index", range(len(CASES)), ids=list(CASES))
def test_saved_tensors_print_and_fail_as_torchs(index, torch_outputs):
    assert_prints_as_torch(_scripts()[index], torch_outputs[index], lambda text: _ADDRESS.sub("…", text))


def test_saved_values_torch_makes_inside_an_op_are_refused_by_name():
    ours = run_script(
        _HEAD + "x = torch.randn(3, requires_grad=True)\nprint(x.sort()[0].grad_fn._saved_indices)\n"
    )
    assert ours.error is not None and "_saved_indices" in ours.error and "not supported" in ours.error
