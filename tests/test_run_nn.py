"""`gradcli run` past the autograd chapter: classes, torch.nn modules, custom autograd.Functions,
torch.utils.data, and torch's generator under them.

Each script runs under torch 2.13 (all in one subprocess) and under gradcli; printed output must
be equal byte for byte (object addresses masked) and an error must be torch's exception type and
message. Longer tutorial-shaped scripts live in tests/scripts/ (tut_nn_*, tut_module_api,
tut_custom_function_legendre, tut_dataloader).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from oracle import torch_stdouts
from script_run import run_script

_ADDRESS = re.compile(r"object at 0x[0-9a-f]+")
_HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ntorch.manual_seed(0)\n"
# Each of torch.nn's classes with each hostile value in each constructor argument: gradcli ends
# every such script cleanly (an error line, never an escaping exception or "internal error").
_HOSTILE_VALUES = ["None", "'a'", "-1", "0", "10**30", "2.5", "float('nan')", "()", "[1, 2]", "True", "torch.ones(2)"]
_BASELINES = {"Linear": ["3", "2"], "Embedding": ["5", "3"], "LayerNorm": ["3"], "Unflatten": ["1", "(3, 1)"]}

CASES = {
    # -- classes -------------------------------------------------------------------------------
    "plain class": """
class Counter:
    start = 10
    def __init__(self, step=1):
        self.n = Counter.start
        self.step = step
    def tick(self):
        self.n += self.step
        return self.n
c = Counter(step=5)
print(c.tick(), c.tick(), c.n, Counter.start, type(c).__name__, isinstance(c, Counter))
""",
    "inheritance and super": """
class Base:
    def __init__(self, x):
        self.x = x
    def show(self):
        return f"Base({self.x})"
class Child(Base):
    def __init__(self, x, y):
        super().__init__(x)
        self.y = y
    def show(self):
        return "Child:" + super().show() + str(self.y)
print(Child(1, 2).show(), isinstance(Child(1, 2), Base))
""",
    "str and repr protocol": """
class P:
    def __init__(self, v):
        self.v = v
    def __repr__(self):
        return f"P({self.v})"
print(P(3), [P(1), P(2)], str(P(4)))
""",
    "call protocol": """
class Scale:
    def __init__(self, k):
        self.k = k
    def __call__(self, t):
        return t * self.k
s = Scale(3.0)
print(s(torch.tensor([1.0, 2.0])))
""",
    "missing attribute": "class A:\n    pass\nprint(A().nope)\n",
    "too many arguments": "class A:\n    def __init__(self, x):\n        self.x = x\nA(1, 2)\n",
    "not callable instance": "class A:\n    pass\nA()(1)\n",
    # -- nn.Module -------------------------------------------------------------------------------
    "module repr and parameters": """
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.LeakyReLU(0.2), nn.Dropout(0.1))
        self.head = nn.Linear(4, 2, bias=False)
        self.norm = nn.LayerNorm(2)
        self.emb = nn.Embedding(5, 3, padding_idx=0)
    def forward(self, idx):
        return self.norm(self.head(self.body(self.emb(idx))))
net = Net()
print(net)
for name, p in net.named_parameters():
    print(name, p.shape, p.dtype)
net.eval()
out = net(torch.tensor([1, 2, 0]))
print(out, out.grad_fn)
out.sum().backward()
print(net.emb.weight.grad)
""",
    "activations and losses": """
x = torch.randn(3, 4, requires_grad=True)
t = torch.tensor([0, 3, 1])
for m in [nn.ReLU(), nn.Sigmoid(), nn.Tanh(), nn.GELU(), nn.GELU(approximate='tanh'), nn.SiLU(),
          nn.ELU(), nn.Softplus(), nn.Softmax(dim=1), nn.LogSoftmax(dim=1), nn.Identity(), nn.Flatten(0)]:
    y = m(x)
    print(m, y.grad_fn, y.sum().item())
for loss in [nn.CrossEntropyLoss(), nn.CrossEntropyLoss(reduction='sum', label_smoothing=0.1),
             nn.NLLLoss()]:
    print(loss, loss(x, t))
target = torch.rand(3, 4)
for loss in [nn.MSELoss(), nn.L1Loss(reduction='sum'), nn.SmoothL1Loss(beta=0.5), nn.HuberLoss(delta=0.3),
             nn.BCEWithLogitsLoss()]:
    print(loss(x, target))
print(nn.BCELoss()(torch.sigmoid(x), target))
""",
    "containers": """
seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
print(seq[0], seq[-1], len(seq), seq[1:])
layers = nn.ModuleList([nn.Linear(2, 2)])
layers.append(nn.Tanh())
layers.extend([nn.Linear(2, 2), nn.Linear(2, 2)])
print(layers, len(layers))
d = nn.ModuleDict({'a': nn.ReLU(), 'b': nn.Linear(1, 1)})
print(d['b'], list(d.keys()), len(d))
print([type(m).__name__ for m in seq.modules()])
""",
    "state dict round trip": """
a = nn.Linear(2, 2)
b = nn.Linear(2, 2)
print(a.state_dict())
print(b.load_state_dict(a.state_dict()))
print(torch.equal(a.weight, b.weight), b.weight.requires_grad)
""",
    "state dict mismatch": "a = nn.Linear(2, 2)\nnn.Linear(3, 2).load_state_dict(a.state_dict())\n",
    "double and zero_grad": """
m = nn.Linear(2, 1).double()
x = torch.ones(1, 2, dtype=torch.float64)
m(x).sum().backward()
print(m.weight.dtype, m.weight.grad)
m.zero_grad(set_to_none=False)
print(m.weight.grad, m.bias.grad)
m.zero_grad()
print(m.weight.grad)
""",
    "parameter before init": """
class Bad(nn.Module):
    def __init__(self):
        self.w = nn.Parameter(torch.ones(1))
Bad()
""",
    "missing forward": "class M(nn.Module):\n    pass\nM()(torch.ones(1))\n",
    "tensor as parameter": """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(1))
        self.w = torch.zeros(1)
M()
""",
    "linear arguments": "nn.Linear(3)\n",
    "linear keyword": "nn.Linear(3, 2, bais=False)\n",
    "dropout range": "nn.Dropout(1.5)\n",
    "softmax without dim": "print(nn.Softmax()(torch.tensor([1.0, 2.0])))\n",
    # -- custom autograd.Function ----------------------------------------------------------------------
    "custom function": """
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result
x = torch.tensor([0.5, -1.0], requires_grad=True)
y = Exp.apply(x)
print(y, y.grad_fn.name())
(y * 2).sum().backward()
print(x.grad)
""",
    "custom function gradient count": """
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.ones(2, requires_grad=True)
Bad.apply(x, x).sum().backward()
""",
    "custom function needs_input_grad": """
class Show(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, k):
        print(ctx.needs_input_grad)
        ctx.k = k
        return a + b * k
    @staticmethod
    def backward(ctx, g):
        return g, None, None
a = torch.ones(2, requires_grad=True)
out = Show.apply(a, torch.ones(2), 3)
out.sum().backward()
print(a.grad, out.grad_fn.next_functions[1])
""",
    # -- torch.optim ------------------------------------------------------------------------------------
    "optimizers step as torch's": """
x = torch.randn(50)
y = 3 * x + 1
for name in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]:
    w = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    if name == "SGD":
        opt = torch.optim.SGD([w, b], lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)
    elif name == "Adam":
        opt = torch.optim.Adam([w, b], lr=0.05)
    elif name == "AdamW":
        opt = torch.optim.AdamW([{"params": [w]}, {"params": b, "lr": 0.1}], lr=0.05)
    elif name == "RMSprop":
        opt = torch.optim.RMSprop([w, b], lr=0.05)
    else:
        opt = torch.optim.Adagrad([w, b], lr=0.05)
    for i in range(30):
        opt.zero_grad()
        loss = ((w * x + b - y) ** 2).mean()
        loss.backward()
        opt.step()
    print(name, loss.item(), w.item(), b.item())
""",
    "optimizer repr and groups": """
w = nn.Parameter(torch.ones(3))
opt = torch.optim.Adam([{"params": [w], "lr": 0.1}], betas=(0.8, 0.99))
print(opt)
opt.param_groups[0]["lr"] = 0.01
(w * w).sum().backward()
opt.step()
print(w, opt.state_dict()["param_groups"][0]["lr"], list(opt.state_dict()["state"][0].keys()))
opt.zero_grad()
print(w.grad)
""",
    "schedulers": """
w = nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([w], lr=1.0)
for sched in [torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.1),
              torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9),
              torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5),
              torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))]:
    lrs = []
    for i in range(6):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    print(type(sched).__name__, lrs)
""",
    "invalid learning rate": "torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=-0.1)\n",
    "empty parameter list": "torch.optim.Adam([])\n",
    "optimizing a number": "torch.optim.SGD([1.0], lr=0.1)\n",
    # -- d2l's idioms: type(m) == nn.Linear, apply, shared modules, self.training, tensor indices
    "d2l module idioms": """
from torch.utils import data
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Sequential(nn.Linear(8, 2)))
def show(m):
    print(type(m).__name__, type(m) == nn.Linear)
net.apply(show)
print(type(net), type(net[0]) is nn.Linear)
shared = nn.Linear(8, 8)
net2 = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), shared, nn.ReLU(), shared)
print(list(net2.state_dict().keys()))
class Net(nn.Module):
    def __init__(self, is_training=True):
        super().__init__()
        self.training = is_training
        self.lin = nn.Linear(2, 2)
    def forward(self, x):
        return self.lin(x)
n = Net()
n.eval()
print(n.training, n.lin.training)
ds = data.TensorDataset(torch.ones(3, 2))
print(len(data.DataLoader(ds, batch_size=2)))
classes = ('a', 'b', 'c')
labels = torch.tensor([2, 0])
print(classes[labels[0]], [1, 2, 3][torch.tensor(1)])
""",
    "d2l initialisation and synthetic data": """
def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))
features, labels = synthetic_data(torch.tensor([2, -3.4]), 4.2, 20)
print(features[:3], labels[:3])
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
print(net[0].weight)
print(torch.randperm(10), torch.normal(torch.zeros(3), torch.ones(3)), torch.normal(2.0, torch.ones(2, dtype=torch.float64)))
def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)
        nn.init.zeros_(m.bias)
mlp = nn.Sequential(nn.Flatten(), nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
mlp.apply(init_weights)
print(mlp[1].weight, mlp[3].bias)
w = torch.empty(3, 5)
nn.init.xavier_uniform_(w); print(w)
nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu'); print(w)
nn.init.constant_(w, 0.3); print(w)
x = torch.empty(4).uniform_(-1, 1); print(x)
""",
    "step(closure) and scheduler state": """
from torch.optim import lr_scheduler as L
model = nn.Linear(3, 1).double()
X, y = torch.randn(8, 3, dtype=torch.float64), torch.randn(8, dtype=torch.float64)
for make in [lambda o: L.StepLR(o, 3), lambda o: L.MultiStepLR(o, [2, 4, 4]), lambda o: L.ExponentialLR(o, 0.9),
             lambda o: L.CosineAnnealingLR(o, 10), lambda o: L.LambdaLR(o, lambda e: 0.9 ** e)]:
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = make(opt)
    for i in range(3):
        def closure():
            opt.zero_grad()
            loss = (((model.weight * X).sum(1) + model.bias - y) ** 2).mean()  # no BLAS: exact bits
            loss.backward()
            return loss
        loss = opt.step(closure)
        sched.step()
        print(i, loss.item(), loss)
    print(sched.state_dict())
    again = make(opt)
    again.load_state_dict(sched.state_dict())
    print(again.last_epoch, again.get_last_lr(), sched.optimizer is opt)
with torch.no_grad():
    print(opt.step(lambda: (model.weight ** 2).sum()), model.weight)
opt.step(1, 2)
""",
    "conv, pooling and batch norm modules: reprs, parameters, errors": """
for m in [nn.Conv2d(1, 6, 5), nn.Conv2d(3, 8, (3, 5), stride=2, padding=1, dilation=2, bias=False), nn.Conv2d(4, 8, 3, padding='same', groups=2),
          nn.Conv1d(2, 3, 4), nn.Conv1d(2, 4, 3, stride=2, padding=(1,)), nn.MaxPool2d(2), nn.MaxPool2d((2, 3), stride=1, padding=1, ceil_mode=True),
          nn.MaxPool1d(3), nn.AvgPool2d(2), nn.AvgPool2d(3, 2, 1, True, False, 2), nn.AvgPool1d(2), nn.AvgPool1d(3, 1, 1, True, False),
          nn.BatchNorm1d(4), nn.BatchNorm2d(3, eps=1e-3, momentum=None, affine=False, track_running_stats=False), nn.BatchNorm1d(2, bias=False)]:
    print(m)
c = nn.Conv2d(2, 3, 2)
print(c.weight, c.bias, c.weight.shape, c.kernel_size, c.padding, c.stride)
c1 = nn.Conv1d(4, 2, 3, groups=2, bias=False)
print(c1.weight, c1.bias)
b = nn.BatchNorm1d(3)
print(b.state_dict(), list(b.named_buffers()), b.num_batches_tracked, b.momentum, b.affine)
print(nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.BatchNorm1d(4)))
for bad in [lambda: nn.Conv2d(3, 4, 3, groups=2), lambda: nn.Conv2d(4, 3, 3, groups=2), lambda: nn.Conv2d(2, 2, 3, stride=2, padding='same'), lambda: nn.Conv2d(2, 2, 3, groups=0), lambda: nn.BatchNorm1d(3, 1e-5, 0.1, True, True, None, None, False)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
""",
    "a custom backward's None is no gradient": """
class Half(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * 2 + b
    @staticmethod
    def backward(ctx, g):
        return g * 2, None
a = torch.ones(2, requires_grad=True)
b = torch.ones(2, requires_grad=True)
y = Half.apply(a, b)
(y.sum() + b.sum()).backward()
print(a.grad, b.grad)
a.grad = None; b.grad = None
Half.apply(a, b).sum().backward()
print(a.grad, b.grad)
print(torch.autograd.grad(Half.apply(a, b).sum(), [a, b], allow_unused=True))
try:
    print(torch.autograd.grad(Half.apply(a, b).sum(), [a, b]))
except RuntimeError as e:
    print("RuntimeError", e)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(3, 2)
        self.register_parameter('l', None)
Net()
""",
    "create_graph through custom Functions": """
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 3 * x ** 2 * g
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w
    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g * w, (g * x) if ctx.needs_input_grad[1] else None
x = torch.tensor([1.0, 2.0, -0.5], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (Scale.apply(Cube.apply(x.sin()), w) * x).sum()
gx, gw = torch.autograd.grad(y, (x, w), create_graph=True)
print(gx, gw)
print(gx.grad_fn, gx.grad_fn.next_functions)
h, = torch.autograd.grad(gx.sum() + gw.pow(2).sum(), x)
print(h)
z = Cube.apply(x).sum()
z.backward(create_graph=True)
print(x.grad)
x.grad.sum().backward()
print(x.grad)
""",
    "next_functions leave out indices, targets, masks and weights": """
x = torch.randn(3, 4, requires_grad=True)
i = torch.tensor([[0], [1], [2]])
print(x.gather(1, i).grad_fn.next_functions)
print(x[torch.tensor([0, 2])].grad_fn.next_functions)
print(F.cross_entropy(x, torch.tensor([1, 0, 2])).grad_fn.next_functions)
print(F.embedding(torch.tensor([0, 1]), x).grad_fn.next_functions)
print(torch.where(x > 0, x, torch.zeros(3, 4)).grad_fn.next_functions)
print(F.binary_cross_entropy(torch.sigmoid(x), torch.ones(3, 4)).grad_fn.next_functions)
print(F.mse_loss(x, torch.ones(3, 4)).grad_fn.next_functions)
print(x.masked_fill(x > 0, 1.0).grad_fn.next_functions)
print(F.one_hot(torch.tensor([1]), 3).float().mul(x[:1, :3]).grad_fn.next_functions)
print((x[0, :2] * torch.tensor([1, 2])).grad_fn.next_functions)
print((x[0, :2] + torch.tensor([True, False])).grad_fn.next_functions)
print(torch.cat([x[:1], torch.tensor([[1, 2, 3, 4]])]).grad_fn.next_functions)
print(F.nll_loss(F.log_softmax(x, 1), torch.tensor([1, 0, 2]), weight=torch.ones(4)).grad_fn.next_functions)
for y in [x.gather(1, torch.tensor([[0], [1], [2]])), x[torch.tensor([0, 2])], F.cross_entropy(x, torch.tensor([1, 0, 2])), F.embedding(torch.tensor([0, 1]), x), x.masked_fill(x > 0, 1.0), F.nll_loss(F.log_softmax(x, 1), torch.tensor([1, 0, 2]), weight=torch.ones(4)), F.binary_cross_entropy(torch.sigmoid(x), torch.ones(3, 4), weight=torch.ones(4)), F.binary_cross_entropy_with_logits(x, torch.ones(3, 4), pos_weight=torch.ones(4)), x.masked_select(x > 0), F.cross_entropy(x, torch.tensor([1, 0, 2]), weight=torch.ones(4), label_smoothing=0.1)]:
    print(y.grad_fn.name(), len(y.grad_fn.next_functions), [f is None for f, _ in y.grad_fn.next_functions])
""",
    "Python's random module": """
import random
random.seed(0)
print(random.random(), random.randint(1, 6), random.choice(['a', 'b', 'c']), random.uniform(-1, 1))
xs = list(range(10))
random.shuffle(xs)
print(xs, random.sample(range(100), 5), random.gauss(0, 1), random.randrange(0, 50, 5))
for t in range(3):
    print(random.randint(0, 3))
try:
    random.randint(5, 1)
except ValueError as e:
    print("ValueError", e)
try:
    random.choice([])
except IndexError as e:
    print("IndexError", e)
random.seed(12345)
print(torch.tensor([random.random() for _ in range(3)]))
from random import randint, shuffle
random.seed(2**70 + 3)
ys = [randint(-5, 5) for _ in range(8)]
shuffle(ys)
print(ys)
""",
    "x.__class__ is type(x)": """
layer = nn.Linear(2, 2)
print(layer.__class__.__name__, layer.__class__ is nn.Linear, torch.ones(1).__class__, {}.__class__, (1).__class__.__name__)
""",
    "a module that holds itself": """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.me = self
print(len(list(Net().modules())))
for name in ["a.b", ""]:
    try:
        nn.Module().register_buffer(name, None)
    except KeyError as e:
        print("KeyError", e)
try:
    nn.Sequential().add_module("a.b", nn.ReLU())
except KeyError as e:
    print("KeyError", e)
print(Net())
""",
    # -- torch.utils.data and the generator ------------------------------------------------------------
    "data loader draws": """
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.arange(10.0), torch.arange(10))
for x, y in DataLoader(ds, batch_size=4, shuffle=True):
    print(x, y)
print(len(DataLoader(ds, batch_size=4, drop_last=True)), torch.randn(2))
for x in DataLoader([1.5, 2.5, 3.5], batch_size=2):
    print(x)
""",
    "seeded draws": """
print(torch.rand(3), torch.randn(2, 2, dtype=torch.float64), torch.randint(0, 100, (4,)))
print(torch.randn(40)[-3:], torch.rand_like(torch.ones(2, dtype=torch.float64)))
torch.manual_seed(7)
print(torch.randn(3))
""",
}
_INTEL = "GenuineIntel" in Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else False
DROPOUT = """
x = torch.randn(3, 5, requires_grad=True)
y = nn.Dropout(0.4)(x)
print(y, y.grad_fn)
y.sum().backward()
print(x.grad, F.dropout(x.double(), 0.2))
"""


def _scripts() -> list[str]:
    return [_HEAD + text for text in [*CASES.values(), DROPOUT]]


@pytest.fixture(scope="module")
def torch_outputs() -> list[str]:
    return torch_stdouts(_scripts())


def _compare(script: str, theirs: str) -> None:
    ours = run_script(script)
    if "!" in theirs and not theirs.endswith("\n"):  # torch raised: its type and message, at its line
        printed, error = theirs.rsplit("!", 1)
        assert ours.error is not None, f"{script}\nexpected {error}"
        assert ours.error.split(": ", 1)[1] == error, script
        assert _ADDRESS.sub("…", ours.stdout) == _ADDRESS.sub("…", printed), script
        return
    assert ours.error is None, f"{script}\n{ours.error}"
    assert _ADDRESS.sub("…", ours.stdout) == _ADDRESS.sub("…", theirs), script


@pytest.mark.parametrize("index", range(len(CASES)), ids=list(CASES))
def test_script_prints_and_fails_as_torch_does(index, torch_outputs):
    _compare(_scripts()[index], torch_outputs[index])


@pytest.mark.skipif(_INTEL, reason="torch draws bernoulli_(p: float) from MKL on Intel CPUs (not modelled)")
def test_dropout_draws_torchs_mask(torch_outputs):
    _compare(_scripts()[-1], torch_outputs[-1])


def test_an_unseeded_script_draws_fresh_numbers_each_run():
    first, second = (run_script("import torch\nprint(torch.rand(4))\n").stdout for _ in range(2))
    assert first != second


def test_torchs_sibling_libraries_are_one_error_line():
    for script in ("import torchvision\n", "from torchvision import datasets\n"):
        result = run_script(script)
        assert result.error is not None and result.stdout == ""
        assert result.error.startswith("line 1: torchvision is not in gradcli's torch")


def _layer_argument_scripts() -> list[str]:
    from gradcli.script.nn_modules import LAYERS

    scripts = []
    for name, layer in LAYERS.items():
        if name in ("Module", "Sequential", "ModuleList", "ModuleDict", "Identity"):
            continue
        base = _BASELINES.get(name, [])
        params = [p for p, _ in layer.signature if p not in ("device", "dtype", "size_average", "reduce", "_weight")]
        x = "torch.tensor([0, 2, 4])" if name == "Embedding" else "torch.tensor([[0.5, -1.0, 2.0], [0.25, 0.0, -3.0]])"
        use = f"m({x}, torch.tensor([0, 2]))" if name in ("CrossEntropyLoss", "NLLLoss") else (
            f"m({x}, torch.rand(2, 3))" if name.endswith("Loss") else f"m({x})"
        )
        for i, param in enumerate(params):
            for value in _HOSTILE_VALUES:
                args = list(base)
                if i < len(args):
                    args[i] = value
                else:
                    args.append(f"{param}={value}")
                scripts.append(f"{_HEAD}m = nn.{name}({', '.join(args)})\nprint(m)\nprint({use})\n")
    return scripts


def test_torch_nn_classes_end_cleanly_on_hostile_arguments():
    scripts = _layer_argument_scripts()
    assert len(scripts) > 400
    for script in scripts:
        result = run_script(script)  # raises if anything escapes
        assert result.error is None or "internal error" not in result.error, script
