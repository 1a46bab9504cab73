# The README's example of create_graph=True and of an index assignment in a graph
import torch

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
g, = torch.autograd.grad(torch.tanh(x).sum(), x, create_graph=True)
print(g)
h, = torch.autograd.grad(g.sum(), x)
print(h)
y = x * 2
y[0] = 10.0
print(y)
y.sum().backward()
print(x.grad)
