# Older tutorials and d2l idioms: torch.autograd.Variable (a tensor since torch 0.4),
# functools.partial over a loss, torch.__version__, id() to show an update happened in place,
# and the defaults set at the top of many notebooks.
import functools
from functools import partial

import torch
import torch.nn.functional as F
from torch.autograd import Variable

print(torch.__version__.split("+")[0] >= "2.0")
torch.set_default_device("cpu")
torch.set_default_dtype(torch.float32)
print(torch.get_default_dtype())

x = Variable(torch.tensor([1.0, 2.0]), requires_grad=True)
y = Variable(torch.tensor([0.5, -0.5]))
print(x, y, x.is_leaf, y.requires_grad)
loss = (x * x).sum()
loss.backward()
print(x.grad)

huber = partial(F.smooth_l1_loss, beta=0.5)
scaled = functools.partial(torch.mul, 3.0)
print(huber(torch.tensor([0.1, 2.0]), torch.zeros(2)), scaled(torch.tensor([1.0, 2.0])))


def power(base, exponent):
    return base**exponent


square = partial(power, exponent=2)
print(square(torch.tensor(3.0)), list(map(square, [1, 2, 3])))

X = torch.arange(4.0)
Y = torch.ones(4)
before = id(Y)
Y = Y + X
print(id(Y) == before)
Z = torch.zeros_like(Y)
before = id(Z)
Z[:] = X + Y
print(id(Z) == before)
before = id(X)
X += Y
print(id(X) == before)
