# Modelled on the torch.autograd.functional docs: vjp, vhp and hvp of small functions
import torch
from torch.autograd.functional import vjp, hvp, vhp
def f(x):
    return (x ** 3).sum()
def g(x, y):
    return x * y + y.sin()
x = torch.tensor([1.0, 2.0, 3.0])
y = torch.tensor([0.5, -1.0, 2.0])
print(vjp(f, x))
print(vjp(g, (x, y), torch.ones(3)))
print(hvp(f, x, torch.tensor([1.0, 0.0, -1.0])))
print(vhp(f, x, torch.tensor([1.0, 1.0, 1.0])))
print(torch.autograd.functional.hvp(lambda a, b: (a * b ** 2).sum(), (x, y), (torch.ones(3), torch.ones(3))))
