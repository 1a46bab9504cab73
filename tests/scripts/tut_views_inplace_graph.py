# PyTorch docs, "Tensor Views" and "Autograd mechanics" (in-place correctness checks):
# a change through a view of a tensor in a graph changes the base, whose grad_fn becomes
# CopySlices; the view's grad_fn is regenerated as AsStridedBackward0
import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
y = x * 1.0
row = y[1]
row.mul_(10)
print(row, y, sep="\n")
print(row.grad_fn.name(), y.grad_fn.name())
col = y[:, 0]
y[2, 0] = -1.0
print(col)
(col * col).sum().backward(retain_graph=True)
print(x.grad)
x.grad.zero_()
t = y.t()
t[1].add_(100)
print(y)
y.sum().backward()
print(x.grad)
z = x.view(6) * 2
z.view(2, 3)[0, :2] = torch.tensor([7.0, 8.0])
print(z)
z.sum().backward()
print(x.grad)
