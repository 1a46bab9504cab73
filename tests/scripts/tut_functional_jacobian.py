# torch.autograd.functional.jacobian and hessian, as autograd tutorials use them: one input or
# several, one output or several; the Hessian of a scalar energy.
import torch
from torch.autograd.functional import jacobian, hessian


def f(x):
    return x ** 2 * torch.sin(x)


def g(x, y):
    return (x * y).sum(), x.exp()


def energy(x):
    return (x ** 3).sum() + x[0] * x[1]


x = torch.tensor([0.5, 1.0, 2.0])
print(jacobian(f, x))
J = torch.autograd.functional.jacobian(g, (x, torch.tensor([1.0, -1.0, 0.5])))
print(J[0][1], J[1][0].shape)
print(hessian(energy, x))
W = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
print(jacobian(f, x).shape, x.requires_grad)
