# Sorting and top-k, as ranking and beam-search code uses them: (values, indices) pairs,
# SortBackward0 / TopkBackward0 sending gradients back where each value came from.
import torch
x = torch.tensor([[3.0, 1.0, 4.0, 1.5], [5.0, 9.0, 2.0, 6.0]], requires_grad=True)
s = x.sort(dim=1, descending=True)
print(s)
v, i = torch.sort(x, 0)
print(v, i)
top = x.topk(2, dim=1)
(top.values * torch.tensor([[1.0, 10.0]])).sum().backward()
print(x.grad)
print(torch.argsort(x.detach().flatten()), x.detach().argsort(dim=0, descending=True))
print(x.sort().values.grad_fn, x.topk(1).values.grad_fn.name(), torch.sort(x, stable=True)[0].grad_fn.name())
y = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
w, _ = y.sort()
g, = torch.autograd.grad((w * torch.arange(3.0, dtype=torch.float64)).sum(), y, create_graph=True)
print(g)
try:
    x.topk(5)
except RuntimeError as e:
    print("RuntimeError:", e)
