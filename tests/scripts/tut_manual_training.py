# "PyTorch from scratch": forward, loss, backward, update with .data, losses list
import torch
import math

x = torch.linspace(-math.pi, math.pi, 20)
y = torch.sin(x)
a = torch.tensor(0.1, requires_grad=True)
b = torch.tensor(-0.2, requires_grad=True)
c = torch.tensor(0.3, requires_grad=True)
d = torch.tensor(-0.1, requires_grad=True)
learning_rate = 1e-4
losses = []
for t in range(50):
    y_pred = a + b * x + c * x**2 + d * x**3
    loss = (y_pred - y).pow(2).sum()
    losses.append(round(loss.item(), 3))
    loss.backward()
    a.data -= learning_rate * a.grad.data
    b.data.sub_(learning_rate * b.grad)
    c.data = c.data - learning_rate * c.grad
    d.data.add_(d.grad, alpha=-learning_rate)
    a.grad = None
    b.grad = None
    c.grad.zero_()
    d.grad.data.zero_()
print(losses[:5], losses[-1])
print(f"Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3")
print(a.grad, c.grad)
