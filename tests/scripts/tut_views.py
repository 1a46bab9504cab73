"""Views share storage with their base, as in PyTorch: a change through one shows through the others."""

import torch

x = torch.arange(6.0).view(2, 3)
row = x[0]
col = x[:, 1]
xt = x.t()
flat = x.reshape(6)
print(x, row, col, xt, flat, sep="\n")

row[1] = 10.0
print("after row[1] = 10:", x, col, xt, flat, sep="\n")

xt[2, 1] = -1.0
print(x)
flat.mul_(2)
print(row, col)
x.zero_()
print(flat)
x.fill_(3.0)
print(xt, row)

a = torch.ones(2, 3)
b = a.unsqueeze(0)
c = b.squeeze()
d = a.permute(1, 0)
e = a.transpose(0, 1)
f = a[1:, ::2]
g = a.T
a[1, 2] = 7.0
print(b, c, d, e, f, g, sep="\n")
f -= 4
print(a)
e += 1
print(a, d)

# expand: reads through to the base, and refuses in-place writes that overlap
base = torch.tensor([1.0, 2.0, 3.0])
wide = base.expand(2, 3)
base[0] = 9.0
print(wide)
try:
    wide.add_(1)
except RuntimeError as err:
    print("RuntimeError:", err)
wide[0, 0] = 5.0
print(base)

# advanced indexing copies
m = torch.arange(4.0)
picked = m[[0, 2]]
masked = m[m > 1]
picked[0] = 100.0
masked.fill_(-5.0)
print(m, picked, masked)

# detach shares storage; .data too
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d1 = w.detach()
d1[0] = 50.0
print(w)
w.data[1] = 60.0
print(w, d1)
w.data.zero_()
print(w)
with torch.no_grad():
    w[2] = 4.0
    w -= 1
print(w, d1)

# reshape of a non-contiguous tensor copies; view refuses
n = torch.arange(6.0).view(2, 3).t()
r = n.reshape(6)
r[0] = 42.0
print(n)
try:
    n.view(6)
except RuntimeError as err:
    print(err)

# views of a graph tensor
p = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
q = p * 2
q0 = q[0]
print(q0, q.t(), q.view(4), q[:, 1].unsqueeze(1))
q0.sum().backward()
print(p.grad)
try:
    p[0].add_(1)
except RuntimeError as err:
    print(err)
try:
    p[0] = 1.0
except RuntimeError as err:
    print(err)
try:
    p[[0]] = 1.0
except RuntimeError as err:
    print(err)
with torch.no_grad():
    pv = p[1]
try:
    pv.mul_(2)
except RuntimeError as err:
    print(err)
with torch.no_grad():
    pv.mul_(2)
print(p)

# versions count every in-place change
v = torch.zeros(3)
v += 1
v[0] += 1
v.zero_()
v.fill_(2.0)
v.sub_(1.0)
print(v)
