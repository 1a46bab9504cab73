"""List comprehensions: over ranges, lists, zip and a tensor's rows, with their own names, as in Python 3."""

import torch

x = [n * 2 for n in range(5) if n % 2 == 0]
n = 7
y = [n for n in range(3)]
print(x, y, n)
print([[i * j for j in range(3)] for i in range(2)])
print([a + b for a, b in zip([1, 2], [3, 4])])
t = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
rows = [r.sum() for r in t]
print(rows)
total = sum([r * r for r in rows])
total.backward()
print(t.grad)
print([float(v) for v in t.detach().flatten()])
