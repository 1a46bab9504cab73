# torch.autograd.grad docs (create_graph=True: "the graph of the derivative will be
# constructed, allowing to compute higher order derivative products"), and the PyTorch
# forum thread "How to compute the second derivative": d/dx, d2/dx2, d3/dx3 of simple functions
import torch

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
y = x**3
dy, = torch.autograd.grad(y.sum(), x, create_graph=True)
print("dy/dx  ", dy)
d2y, = torch.autograd.grad(dy.sum(), x, create_graph=True)
print("d2y/dx2", d2y)
d3y, = torch.autograd.grad(d2y.sum(), x)
print("d3y/dx3", d3y)
print(dy.requires_grad, d2y.requires_grad, d3y.requires_grad)
print(dy.grad_fn.name(), d2y.grad_fn.name())

t = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
s = torch.sin(t)
for order in range(1, 5):
    (s,) = torch.autograd.grad(s, t, create_graph=True)
    print(f"order {order}: {s.item():.6f}", s.grad_fn)

u = torch.tensor([1.0, 2.0], requires_grad=True)
v = torch.exp(u) * torch.cos(u) + torch.log(u)
g1 = torch.autograd.grad(v.sum(), u, create_graph=True)[0]
g2 = torch.autograd.grad(g1.sum(), u)[0]
print(g1, g2, sep="\n")

w = torch.tensor(2.0, requires_grad=True)
z = torch.sigmoid(w) * torch.tanh(w) / (1 + w**2)
(gw,) = torch.autograd.grad(z, w, create_graph=True)
gw.backward()
print(f"{gw.item():.5f} {w.grad.item():.5f}")
