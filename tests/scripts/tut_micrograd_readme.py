# micrograd (github.com/karpathy/micrograd), README example and test/test_engine.py's
# test_more_ops, written with torch tensors in float64 as its tests compare them
import torch

a = torch.tensor(-4.0, dtype=torch.float64, requires_grad=True)
b = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
c = a + b
d = a * b + b**3
c = c + c + 1
c = c + 1 + c + (-a)
d = d + d * 2 + (b + a).relu()
d = d + 3 * d + (b - a).relu()
e = c - d
f = e**2
g = f / 2.0
g = g + 10.0 / f
g.backward()
print(f"{g.data.item():.4f}")  # the outcome of this forward pass
print(f"{a.grad.item():.4f}")  # dg/da
print(f"{b.grad.item():.4f}")  # dg/db
print(g.grad_fn, g.grad_fn.next_functions)

x = torch.tensor(-4.0, dtype=torch.float64, requires_grad=True)
z = 2 * x + 2 + x
q = z.relu() + z * x
h = (z * z).relu()
y = h + q + q * x
y.backward()
print(x.grad, y)
