# torch.func's whirlwind tour, without vmap: grad, grad_and_value, vjp, jacrev, jacfwd, hessian
import torch
import torch.nn as nn
from torch.func import grad, grad_and_value, hessian, jacfwd, jacrev, vjp

x = torch.tensor([0.25, -1.5, 2.0])

# grad: the gradient of a scalar function, and of its gradient
print(grad(torch.sin)(torch.tensor(0.5)))
print(grad(grad(torch.sin))(torch.tensor(0.5)))
print(grad(lambda t: (t ** 2).sum())(x))


def loss(weights, bias, features, target):
    prediction = features @ weights + bias
    return ((prediction - target) ** 2).mean()


weights = torch.tensor([0.5, -0.25, 1.0])
bias = torch.tensor(0.1)
features = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
target = torch.tensor([1.0, -1.0])
gw, gb = grad(loss, argnums=(0, 1))(weights, bias, features, target)
print(gw, gb)
print(grad_and_value(loss)(weights, bias, features, target))


def with_aux(t):
    y = t.exp()
    return y.sum(), y


g, aux = grad(with_aux, has_aux=True)(x)
print(g, aux)

# vjp: the output and a function of the cotangent
out, vjp_fn = vjp(torch.tanh, x)
print(out)
print(vjp_fn(torch.ones(3)))
out, vjp_fn = vjp(lambda a, b: a * b.sin(), x, x.flip(0))
print(vjp_fn(torch.tensor([1.0, 0.0, -1.0])))

# jacobians, by rows and by columns
print(jacrev(torch.sin)(x))
print(jacfwd(torch.sin)(x))
print(jacrev(lambda a, b: a * b, argnums=(0, 1))(x, x.cos()))
print(jacfwd(lambda t: (t.sin(), t.sum()))(x))

# hessians
print(hessian(lambda t: (t ** 3).sum())(x))
print(hessian(loss)(weights, bias, features, target))
print(jacrev(jacrev(lambda t: t.sin().sum()))(x))

# a model's parameters stay tracked: the gradient has a graph through them
torch.manual_seed(0)
model = nn.Linear(3, 1)
g = grad(lambda t: model(t).squeeze().tanh())(x)
print(g.detach(), g.requires_grad)
g.sum().backward()
print(model.weight.grad)
print(model.bias.grad)
