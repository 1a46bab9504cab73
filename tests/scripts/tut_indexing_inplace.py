# Indexing, slices, index assignment under no_grad, tolist, sum over dims
import torch

w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
row = w[1]
col = w[:, 2]
loss = (row * col).sum() + w[0, 0] ** 2
loss.backward()
print(row, col)
print(w.grad)
with torch.no_grad():
    w[0, 1] = 10.0
    w[1] *= 0.5
print(w)
print(w.grad.tolist(), w.grad.sum(dim=0), w.grad.mean(dim=1, keepdim=True))
t = torch.zeros(4)
t[1:3] = 7
t.fill_(2.5) if False else t.mul_(2)
print(t, t.shape, t[1:].numel())
for i, v in enumerate(t.tolist()):
    print(i, v, end="; ")
print()
a, b = w.shape
print(a * b, w.size(), torch.arange(6).reshape(2, 3))
