"""Tensor hooks: register_hook on leaves and intermediates; a hook may print or replace the gradient."""
import torch


def show(g):
    print("hook sees", g)


def double(g):
    return g * 2


def halve_and_print(g):
    print("halving", g)
    return g / 2


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
z = y.sum()
hy = y.register_hook(show)
hx = x.register_hook(double)
z.backward(retain_graph=True)
print(x.grad)

hy.remove()
y.register_hook(halve_and_print)
x.grad.zero_()
z.backward()
print(x.grad)

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
c = b * b
b.retain_grad()
b.register_hook(double)
c.backward()
print(b.grad, a.grad)

p = torch.tensor([1.0, -1.0], requires_grad=True)
p.register_hook(print)
q = (p * 4).sum()
(gp,) = torch.autograd.grad(q, p)
print(gp, p.grad)

try:
    torch.ones(2).register_hook(show)
except RuntimeError as e:
    print("RuntimeError:", e)


def wrong_size(g):
    return torch.ones(5)


w = torch.ones(3, requires_grad=True)
w.register_hook(wrong_size)
try:
    (w * 2).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)

u = torch.ones(2, requires_grad=True)
v = u * 2
v.register_hook(double)
v.register_hook(double)
v.sum().backward()
print(u.grad)
