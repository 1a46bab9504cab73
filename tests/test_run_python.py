"""`gradcli run` (issue 40): the script runs on CPython and `import torch`
is gradcli's own torch (`gradcli.torch`), so Python's features are Python's own.

Every script of tests/scripts/ and docs/examples/ is run both ways and compared as test_run.py
compares the interpreted run: stdout byte for byte, torch's error at torch's line. gradcli's
side runs them all in one process where the real torch cannot be imported. Scripts
that do not run as torch runs them yet are listed in python_run_gaps.json with the reason;
the list may only shrink (a listed script that now runs as torch runs it fails here, so it
leaves the list), and nothing else may fail.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from blas_kernels import BLAS_SCRIPTS, close_text, modelled_kernels
from torch_server import run_under_torch

from gradcli.runner import run_script

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((ROOT / "tests" / "scripts").glob("*.py")) + sorted(
    (ROOT / "docs" / "examples").glob("*.py")
)
GAPS: dict[str, str] = json.loads((ROOT / "tests" / "python_run_gaps.json").read_text())
_ADDRESS = re.compile(r"object at 0x[0-9a-f]+")


def _mask(text: str) -> str:
    return _ADDRESS.sub("object at 0x…", text)


def _torch_error(path: Path, stderr: str) -> str:
    lines = re.findall(rf'File "[^"]*{re.escape(path.name)}", line (\d+)', stderr)
    return f"line {lines[-1]}: {stderr.strip().splitlines()[-1]}"


_RUN_ALL = """
import json, sys
from gradcli.runner import run_script
done = {}
for path in sys.argv[1:]:
    result = run_script(path)
    done[path] = {"stdout": result.stdout, "error": result.error, "exit_code": result.exit_code}
print(json.dumps(done))
"""


@pytest.fixture(scope="module")
def corpus_runs(tmp_path_factory) -> dict[str, dict]:
    """Every script run once, in one process where the real torch cannot be imported (a `torch`
    package ahead of it on the path raises ImportError): what gradcli prints owes nothing to it."""
    blocked = tmp_path_factory.mktemp("blocked") / "torch"
    blocked.mkdir()
    (blocked / "__init__.py").write_text("raise ImportError('the real torch was imported')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocked.parent), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", _RUN_ALL, *map(str, SCRIPTS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_the_real_torch_is_blocked_in_that_process(tmp_path):
    blocked = tmp_path / "torch"
    blocked.mkdir()
    (blocked / "__init__.py").write_text("raise ImportError('the real torch was imported')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    probe = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True, text=True, env=env)
    assert "the real torch was imported" in probe.stderr


def _runs_as_torch(path: Path, runs: dict[str, dict]) -> tuple[bool, str]:
    theirs = run_under_torch(path=path)
    ours = SimpleNamespace(**runs[str(path)])
    if path.stem in BLAS_SCRIPTS and not modelled_kernels():
        same = close_text(_mask(ours.stdout), _mask(theirs.stdout))
    else:
        same = _mask(ours.stdout) == _mask(theirs.stdout)
    if not same:
        return False, f"stdout differs (ours ended: {ours.error})"
    if theirs.returncode == 0:
        return ours.exit_code == 0, f"ours ended: {ours.error}"
    expected = _torch_error(path, theirs.stderr)
    return ours.error == expected and ours.exit_code == 1, f"ours: {ours.error!r}, torch: {expected!r}"


def test_the_gap_list_names_real_scripts():
    names = {p.stem for p in SCRIPTS}
    assert set(GAPS) <= names, set(GAPS) - names
    assert len(GAPS) < len(SCRIPTS) / 2  # most scripts run as torch runs them


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_script_runs_on_python_as_under_torch(path, corpus_runs):
    same, why = _runs_as_torch(path, corpus_runs)
    if path.stem in GAPS:
        assert not same, f"{path.stem} now runs as torch runs it: take it off tests/python_run_gaps.json"
    else:
        assert same, why


def _run(source: str, argv: tuple[str, ...] = ()) -> object:
    return run_script("-", list(argv), source=source)


def test_a_scripts_torch_is_gradclis_even_beside_the_real_one():
    pytest.importorskip("torch")  # the real torch is importable (and imported) in this process
    import torch as real_torch

    result = _run("import torch, torch.nn.functional as F\nprint(torch.__file__)\nprint(F.__name__)\n")
    printed = result.stdout.splitlines()
    assert printed[0].startswith(str(ROOT / "gradcli" / "torch")), printed
    assert printed[1] == "gradcli.torch.nn.functional"
    assert sys.modules["torch"] is real_torch  # put back after the run


def test_one_module_object_however_it_is_imported():
    result = _run(
        "import torch\nimport torch.nn.functional as F\nfrom torch.nn import functional\n"
        "from torch import nn\nprint(F is torch.nn.functional is functional, nn is torch.nn)\n"
    )
    assert result.stdout == "True True\n", result.error


def test_python_runs_what_the_interpreter_refused():
    script = """
import collections, copy, itertools, json
import numpy as np
import torch

def f(x, scale=2, **options):
    return x * scale + options.get("shift", 0)

counts = collections.Counter("abracadabra")
print(json.dumps(counts.most_common(2)))
seen = {1, 2, 2, 3}
print(sorted(seen), list(itertools.islice(itertools.count(), 3)))
rng = np.random.RandomState(0)
print(rng.randint(0, 10, size=3).tolist())
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = f(x, **{"scale": 3, "shift": 1}).sum()
y.backward()
print(x.grad, copy.deepcopy([1, [2]]))
if __name__ == "__main__":
    print("main")
"""
    result = _run(script)
    assert result.error is None, result.error
    assert result.stdout == (
        '[["a", 5], ["b", 2]]\n[1, 2, 3] [0, 1, 2]\n[5, 0, 3]\ntensor([3., 3.]) [1, [2]]\nmain\n'
    )


def test_pythons_semantics_are_pythons():
    script = """
k = 1
def f(x=k):
    return x
k = 2
def g(items=[]):
    items.append(1)
    return len(items)
x = [1]
y = x
y += [2]
gen = (i for i in range(3))
print(f(), g(), g(), x, list(gen), list(gen))
def h():
    print(k)
    k = 3
try:
    h()
except UnboundLocalError as e:
    print(type(e).__name__)
"""
    result = _run(script)
    assert result.stdout == "1 1 2 [1, 2] [0, 1, 2] []\nUnboundLocalError\n", result.error


def test_argv_exit_codes_and_errors():
    result = _run("import sys\nprint(sys.argv[1:])\nsys.exit(3)\n", ("a", "--b"))
    assert (result.stdout, result.exit_code, result.error) == ("['a', '--b']\n", 3, None)
    result = _run("import torch\nprint('before')\ntorch.ones(2, 3) @ torch.ones(2, 3)\n")
    assert result.stdout == "before\n" and result.exit_code == 1
    assert result.error == "line 3: RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"


def test_a_syntax_error_ends_the_run_at_its_line(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text("import torch\nx = (1 +\n")
    result = run_script(str(script))
    assert (result.error, result.exit_code) == ("line 2: SyntaxError: '(' was never closed", 1)


def test_a_name_gradclis_torch_lacks_is_pythons_error_naming_it():
    result = _run("import torch\nprint(hasattr(torch, 'no_such_thing'))\ntorch.no_such_thing(1)\n")
    assert result.stdout == "False\n"
    assert result.error == "line 3: torch.no_such_thing is not in gradcli's torch (docs/run.md lists what is)"
    script = """
import torch
try:
    from torch.nn import NoSuchLayer
except ImportError as exc:
    print(type(exc).__name__, exc)
try:
    import torch.no_such_module
except ImportError as exc:
    print(type(exc).__name__, exc)
from torch.nn import Linear
import torchvision
"""
    result = _run(script)
    assert result.stdout == (
        "ImportError torch.nn.NoSuchLayer is not in gradcli's torch (docs/run.md lists what is)\n"
        "ImportError torch.no_such_module is not in gradcli's torch (docs/run.md lists what is)\n"
    )
    assert result.error.startswith("line 12: torchvision is not in gradcli's torch")


def test_the_cli_runs_a_script_with_everything_after_it_as_its_arguments(run, tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import sys, torch\nprint(sys.argv[1:], torch.ones(2).sum())\n")
    result = run("run", str(script), "x", "-y", "--epochs", "3")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "['x', '-y', '--epochs', '3'] tensor(2.)\n"
    # as `python s.py -- x` keeps the --; --python, the flag of before, is still taken
    assert run("run", "--python", str(script), "--", "x").stdout == "['--', 'x'] tensor(2.)\n"
    # run's own option after SCRIPT is the script's, with a note saying where run's options go
    moved = run("run", str(script), "--trace")
    assert moved.stdout == "['--trace'] tensor(2.)\n"
    assert moved.stderr.startswith("note: --trace comes after SCRIPT, so it is the script's own argument")


def _same_as_torch(script: str) -> None:
    """The script prints under gradcli.torch what it prints under torch, or ends as torch does."""
    theirs = run_under_torch(source=script)
    ours = _run(script)
    assert _mask(ours.stdout) == _mask(theirs.stdout), ours.error
    if theirs.returncode == 0:
        assert ours.error is None, ours.error
    else:
        assert ours.error is not None and ours.error.endswith(theirs.stderr.strip().splitlines()[-1])


def test_a_call_made_again_with_other_tensors_or_arguments_computes_afresh():
    """torch_api keeps the binder's plan of a call by its shape; each tensor and each argument
    value must still reach the op (dims, bounds, keywords, a bool that is not an int)."""
    _same_as_torch(
        "import torch\nx = torch.arange(6.).reshape(2, 3).requires_grad_()\n"
        "for t in (x, x * 10, x.detach() - 3):\n"
        "    print(t.sum(0), t.sum(1), t.sum(dim=(0, 1)), t.sum(1, True), t.sum(1, keepdim=False))\n"
        "    print(torch.clamp(t, min=2.0), torch.clamp(t, max=2.0), t.max(1), torch.max(t, x))\n"
        "    print(t.sin().sum(), torch.cat([t, x], 0).shape, torch.cat((x, t, t), dim=1).shape)\n"
    )


def test_a_call_recorded_directly_again_reads_its_tensors_afresh():
    """A call that binds to one op is recorded directly the next time, if its tensors are alike:
    the binder read their shapes, strides, dtypes and requires_grad when it planned."""
    _same_as_torch(
        "import torch\nw = torch.arange(6.).reshape(2, 3)\n"
        "for t in (w.T, w.T.contiguous(), w.double().T, w.T.requires_grad_(), torch.ones(2, 3, 4)):\n"
        "    c = t.contiguous()\n"
        "    print(c is t, c.is_contiguous(), t.movedim(0, -1).shape, t.sin().dtype, t.sin().grad_fn)\n"
        "    print(torch.tanh(t).sum(), t.exp().requires_grad, t.sum(0).shape)\n"
    )


def test_a_tensors_methods_are_torchs_on_the_class_and_on_the_tensor():
    """torch.Tensor's methods sit on the class: Tensor.sin(x) and map(Tensor.item, xs) work, a
    non-tensor is the descriptor's TypeError, and the names torch lacks stay AttributeErrors."""
    _same_as_torch(
        "import torch\nx = torch.ones(2)\n"
        "print(torch.Tensor.sin, torch.Tensor.sin(x), list(map(torch.Tensor.item, [x.sum(), x.mean()])))\n"
        "print(torch.Tensor.mul(x, 3), hasattr(x, 'sin'), hasattr(x, 'no_such_method'))\n"
        "try:\n    torch.Tensor.sin(3)\nexcept TypeError as e:\n    print(e)\n"
    )


def test_deepcopy_of_tensors_parameters_and_modules_is_torchs():
    """copy.deepcopy of a leaf (its .grad too), a Parameter, a state_dict and a whole model: each
    copy has its own memory and trains apart; a non-leaf is torch's RuntimeError."""
    _same_as_torch(
        "import copy\nimport torch\nimport torch.nn as nn\ntorch.manual_seed(0)\n"
        "x = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\n"
        "y = copy.deepcopy(x)\nprint(y, y.grad, y.requires_grad, y is x, y.grad is x.grad)\n"
        "model = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))\n"
        "best = copy.deepcopy(model.state_dict())\ntwin = copy.deepcopy(model)\n"
        "opt = torch.optim.SGD(twin.parameters(), lr=0.1)\ndata = torch.randn(4, 3)\n"
        "for _ in range(3):\n    opt.zero_grad()\n    twin(data).pow(2).sum().backward()\n    opt.step()\n"
        "print(model(data), twin(data), type(twin[0].weight).__name__)\n"
        "print(torch.equal(best['0.weight'], model[0].weight), torch.equal(best['0.weight'], twin[0].weight))\n"
        "p = copy.deepcopy(model[0].weight)\nprint(type(p).__name__, p.grad, p.requires_grad)\n"
        "try:\n    copy.deepcopy(x * 2)\nexcept RuntimeError as e:\n    print(e)\n"
    )


def test_random_split_and_subset_are_torchs():
    """random_split draws one randperm from torch's generator (or the one given); fractions
    get their remainder round-robin; a Subset indexes, lists and loads as torch's."""
    _same_as_torch(
        "import torch\nfrom torch.utils.data import DataLoader, Subset, TensorDataset, random_split\n"
        "torch.manual_seed(1)\nds = TensorDataset(torch.arange(10.), torch.arange(10) % 3)\n"
        "a, b = random_split(ds, [7, 3])\nprint(a.indices, b.indices, len(a), b[0], a[[0, 1]])\n"
        "parts = random_split(range(11), [0.3, 0.3, 0.4], generator=torch.Generator().manual_seed(42))\n"
        "print([p.indices for p in parts], [len(p) for p in parts], list(parts[0]))\n"
        "print([batch for batch in DataLoader(b, batch_size=2)])\n"
        "print(Subset(ds, [9, 0])[1], type(a).__name__, type(a).__module__)\n"
        "for lengths in ([5, 4], [0.5, 0.6]):\n"
        "    try:\n        random_split(ds, lengths)\n    except ValueError as e:\n        print(e)\n"
    )


def test_gradient_clipping_is_torchs():
    """clip_grad_norm_ (2, inf and 1 norms, a lone tensor, a model's parameters) returns the
    norm before clipping and scales the gradients in place; clip_grad_value_ clamps them; a
    non-finite norm is torch's error when asked for."""
    _same_as_torch(
        "import torch\nimport torch.nn as nn\nfrom torch.nn.utils import clip_grad_norm_, clip_grad_value_\n"
        "torch.manual_seed(0)\nmodel = nn.Linear(3, 2)\nx = torch.randn(5, 3)\n"
        "for norm_type in (2.0, float('inf'), 1):\n"
        "    model.zero_grad()\n    (model(x) * 10).pow(2).sum().backward()\n"
        "    print(clip_grad_norm_(model.parameters(), 1.5, norm_type=norm_type), model.bias.grad)\n"
        "w = torch.ones(4, requires_grad=True)\n(w * 0.1).sum().backward()\n"
        "print(torch.nn.utils.clip_grad_norm_(w, max_norm=5.0), w.grad)\n"
        "clip_grad_value_(model.parameters(), 0.01)\nprint(model.weight.grad)\n"
        "w.grad = torch.tensor([float('inf'), 1.0, 1.0, 1.0])\n"
        "try:\n    clip_grad_norm_([w], 1.0, error_if_nonfinite=True)\nexcept RuntimeError as e:\n    print(e)\n"
    )


def test_thread_counts_are_kept_and_checked_as_torchs():
    _same_as_torch(
        "import torch\ntorch.set_num_threads(3)\ntorch.set_num_interop_threads(1)\n"
        "print(torch.get_num_threads(), torch.get_num_interop_threads())\n"
        "for bad in (0, -1, 2.5, 'a'):\n"
        "    try:\n        torch.set_num_threads(bad)\n"
        "    except RuntimeError as e:\n        print(str(e).splitlines()[0])\n"
    )
    assert _run("import torch\nprint(torch.get_num_threads())\n").stdout == f"{os.cpu_count()}\n"  # reset


def test_a_tensor_past_the_machines_memory_fails_as_torchs_allocator_fails():
    """Sizes no machine has (hundreds of terabytes), so torch's own allocation fails at once."""
    _same_as_torch(
        "import torch\nx = torch.ones(3)\n"
        "for make in (lambda: torch.ones(10**7, 10**7), lambda: torch.zeros(10**7, 10**7, dtype=torch.float64),\n"
        "             lambda: torch.full((10**8, 10**7), 2), lambda: x.expand(10**7, 10**7, 3) * 2):\n"
        "    try:\n        make()\n    except RuntimeError as e:\n        print(e)\n"
        "torch.empty(10**15)\n"
    )


def test_an_optimiser_over_a_tensor_listed_twice_or_in_two_groups_is_torchs():
    """[w, w] updates w twice a step with one state, numbered as torch's state_dict numbers it;
    a tensor in two groups is torch's ValueError."""
    _same_as_torch(
        "import torch, warnings\nwarnings.simplefilter('ignore')\nw = torch.ones(2, requires_grad=True)\n"
        "for O in (torch.optim.SGD, torch.optim.Adam):\n    o = O([w, w], lr=0.1)\n"
        "    for i in range(3):\n        o.zero_grad(); (w * w).sum().backward(); o.step()\n"
        "    print(w, len(o.state), o.state_dict()['param_groups'][0]['params'])\n"
        "for make in (lambda: torch.optim.SGD([{'params': [w]}, {'params': [w]}], lr=0.1),\n"
        "             lambda: torch.optim.SGD([w], lr=0.1).add_param_group({'params': [w]})):\n"
        "    try:\n        make()\n    except ValueError as e:\n        print(e)\n"
    )


def test_devices_carry_their_index_and_type_as_torchs():
    _same_as_torch(
        "import torch\nfor s in ('cpu', 'cuda', 'cuda:1', 'cpu:0', 0, 'cuda:x'):\n    try:\n"
        "        d = torch.device(s)\n        print(repr(d), d.index, d.type, str(d), d == torch.device('cuda'))\n"
        "    except Exception as e:\n        print(type(e).__name__, e)\n"
        "print(torch.device('cuda', 2), torch.device('cuda', 2).index, torch.ones(2).device.index)\n"
    )


def test_a_reader_that_goes_away_ends_the_run_quietly(tmp_path):
    """`gradcli run train.py | head -1`: no error line, exit 0, as grad ends it."""
    script = tmp_path / "many.py"
    script.write_text("for i in range(10**6):\n    print(i)\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "gradcli", "run", str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stdout.readline() == b"0\n"
    process.stdout.close()
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0 and stderr == b""


def test_a_scripts_module_registers_as_torchs_does():
    _same_as_torch(
        """
import torch
from torch import nn
from collections import OrderedDict

torch.manual_seed(0)

class Block(nn.Module):
    def __init__(self, width, **options):
        super().__init__()
        self.fc = nn.Linear(width, width, **options)
        self.scale = nn.Parameter(torch.ones(width))
        self.register_buffer("steps", torch.zeros(()))
        self.register_buffer("cache", torch.ones(2), persistent=False)
        self.note = "plain"

    def forward(self, x):
        self.steps += 1
        return torch.relu(self.fc(x)) * self.scale

    def extra_repr(self):
        return f"note={self.note}"

net = nn.Sequential(OrderedDict(first=Block(3), act=nn.Tanh(), last=nn.Linear(3, 1, bias=False)))
print(net)
print([n for n, _ in net.named_parameters()], list(net.state_dict()))
print([type(m).__name__ for m in net.modules()], isinstance(net.first.scale, nn.Parameter))
print(type(net.last), type(net.first.fc.weight), net.last.in_features, net[0] is net.first, len(net[1:]))
y = net(torch.ones(2, 3)).sum()
y.backward()
print(net.first.steps, net.first.scale.grad, net.first.fc.bias.grad)
net.eval()
print(net.training, net.first.training, net.first.note, hasattr(net.first, "missing"))
blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
blocks.append(nn.ReLU())
print(blocks, len(list(blocks.parameters())))
heads = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.Identity()})
print(list(heads.keys()), heads["b"])
def init(m):
    if type(m) == nn.Linear:
        nn.init.constant_(m.weight, 0.5)
net.apply(init)
print(net.last.weight)
try:
    net.first.scale = torch.zeros(3)
except TypeError as e:
    print(e)
print(net.load_state_dict(net.state_dict()))
try:
    net.load_state_dict({"first.scale": torch.ones(3)})
except RuntimeError as e:
    print(str(e).splitlines()[0])
"""
    )


def test_a_custom_function_and_a_dataset_run_as_torchs():
    _same_as_torch(
        """
import torch
from torch.utils.data import DataLoader, Dataset

class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return k * x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        print("needs", ctx.needs_input_grad)
        return grad * 3 * ctx.k * x ** 2, None

x = torch.tensor([1.0, -2.0], requires_grad=True)
y = Cube.apply(x, 2.0)
print(y)
y.sum().backward()
print(x.grad)

class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32)
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return {"x": self.x[i], "y": self.x[i] ** 2}

torch.manual_seed(1)
for batch in DataLoader(Squares(7), batch_size=3, shuffle=True):
    print(batch)
print(len(DataLoader(Squares(7), batch_size=3, drop_last=True)))
"""
    )


def test_constructors_like_a_tensor_and_tensor_slice_bounds_as_torchs():
    _same_as_torch(
        """
import torch
import torch.functional
x = torch.tensor([[1.0, 2.0]], dtype=torch.float64)
print(x.new_ones(2, 3), x.new_zeros((2,)), x.new_full((2, 2), 3.5), x.new_tensor([1, 2]))
print(x.new_ones(2, dtype=torch.int64), x.new_empty(0).shape, x.new_zeros(1, requires_grad=True))
data = torch.arange(20)
ix = torch.randint(0, 10, (3,), generator=torch.Generator().manual_seed(0))
print(torch.stack([data[i:i + 4] for i in ix]), [10, 20, 30][ix[0] % 3])
print(torch.accelerator.is_available(), torch.accelerator.current_accelerator())
"""
    )


def test_torchs_warnings_are_pythons_warnings(tmp_path):
    """Printed by Python's warnings at the script's line, as torch's are, so filterwarnings works;
    a captured run (JSON, the API) keeps them in its result."""
    script = tmp_path / "warns.py"
    script.write_text(
        "import torch, warnings\nx = torch.ones(2, requires_grad=True)\ny = x * 2\nprint(y.grad)\n"
        "warnings.filterwarnings('ignore')\nprint(y.grad)\n"
    )
    theirs = run_under_torch(path=script)
    ours = subprocess.run(
        [sys.executable, "-m", "gradcli", "run", str(script)], capture_output=True, text=True
    )
    assert ours.stdout == theirs.stdout == "None\nNone\n"
    assert ours.stderr == theirs.stderr and ours.stderr.startswith(
        f"{script}:4: UserWarning: The .grad attribute"
    )
    captured = run_script(str(script))
    assert [w.split(": ")[:2] for w in captured.warnings] == [["line 4", "UserWarning"]]


TRACED = """import torch
x = torch.tensor(2.0, requires_grad=True)
y = 2 * x
z = y ** 3
print('before')
z.backward()
print(x.grad)
"""


def test_trace_explain_and_json_name_a_calls_nodes_after_the_scripts_variables(run):
    """The nodes named after the calling frames' variables (y and z, not t1 and t2), the call's
    line and source; and a later command in the same process prints as before (nothing it
    imported was dropped after the script)."""
    traced = run("run", "--trace", "--width", "80", "-", input=TRACED)
    assert traced.exit_code == 0, traced.stderr
    assert traced.stdout.startswith("before\n── line 6: z.backward() ")
    rows = {line.split()[0]: line.split() for line in traced.stdout.splitlines() if line.startswith("  ")}
    assert rows["y"][1:3] == ["MulBackward0", "2"] and rows["z"][1:4] == ["(out)", "PowBackward0", "y**3"]
    assert "t1" not in traced.stdout and traced.stdout.endswith(
        "x.grad: None -> tensor(96.)\n\ntensor(96.)\n"
    )
    explained = run("run", "--explain", "--width", "80", "-", input=TRACED)
    assert explained.exit_code == 0 and "z.backward()" in explained.stdout and "t1" not in explained.stdout
    document = json.loads(run("run", "--format", "json", "-", input=TRACED).stdout)
    (call,) = document["backward_calls"]
    assert call["line"] == 6 and [node["name"] for node in call["nodes"]] == ["x", "y", "z"]
    assert call["grads_after"] == {"x": 96.0}
    after = run("grad", "2*x", "--at", "x=1", "--width", "80")
    assert after.exit_code == 0 and after.stdout.startswith("output t1 = 2  grad_fn=MulBackward0")


def test_the_scripts_own_modules_go_after_it_and_gradclis_stay(tmp_path, monkeypatch):
    (tmp_path / "helper_for_run.py").write_text("VALUE = 3\n")
    script = tmp_path / "main.py"
    script.write_text("import helper_for_run, torch\nprint(helper_for_run.VALUE, torch.ones(1))\n")
    before = {name: module for name, module in sys.modules.items() if name.startswith("gradcli")}
    monkeypatch.chdir(ROOT)  # a script from stdin imports from the working directory: gradcli's own here
    assert run_script(str(script)).stdout == "3 tensor([1.])\n"
    assert _run("import torch\nprint(torch.zeros(1))\n").stdout == "tensor([0.])\n"
    assert "helper_for_run" not in sys.modules
    assert all(sys.modules.get(name) is module for name, module in before.items())
