# PyTorch docs, "Autograd mechanics": in-place operations with autograd (CopySlices when
# a slice of a tensor in a graph is written, the version counter check of saved tensors)
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
y = x * 2
y[0] = 0
print(y)
print(y.grad_fn.name(), y.is_leaf)
y.sum().backward()
print(x.grad)

x.grad = None
y = x.clone()
y[:, 1] *= 3
y[1, 2] = y[0, 0] * 10
print(y)
(y * y).sum().backward()
print(x.grad)

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid()
c = b * 2
b.mul_(5)
try:
    b.sum().backward()
except RuntimeError as e:
    print(e)
d = a.exp()
d.add_(1)
try:
    d.sum().backward()
except RuntimeError as e:
    print(e)
buffer = torch.zeros(4)
buffer[1:3] = a[:2] ** 2
buffer[3] = a.sum()
print(buffer, buffer.is_leaf)
buffer.sum().backward()
print(a.grad)
