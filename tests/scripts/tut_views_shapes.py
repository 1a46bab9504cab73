"""Views of every kind read and write their base: ellipsis, negative dims, view(-1), copy_, .data = ..."""

import torch

x = torch.arange(24.0).reshape(2, 3, 4)
a = x[..., 0]
b = x[1, :, -1]
c = x.flatten(1)
d = x.permute(2, 0, 1)[1]
e = x[:, 1:3].transpose(-1, -2)
f = x.view(-1, 4)[5]
g = x.squeeze(0).unsqueeze(-1)
x[1, 2, 0] = -7.0
x[0] *= -1
print(a, b, c, d, e, f, g.shape, sep="\n")
h = x.view(6, 4)
h[:, 0] = 0.5
print(x[:, :, 0])
y = x.clone()
y[0, 0, 0] = 99.0
print(x[0, 0, 0], y[0, 0, 0])
s = torch.tensor(3.0)
sv = s.view(1)
sv[0] = 4.0
print(s, sv)
ones = torch.ones(3)
z = ones
z += 1
print(ones)
z = z + 1
print(ones, z)
m = torch.zeros(2, 2)
for i in range(2):
    m[i, i] = i + 1.0
    m[i][1 - i] = -1.0
print(m)
r = m[0]
m.copy_(torch.eye(2))
print(r)
w = torch.tensor([1.0, 2.0], requires_grad=True)
for step in range(3):
    loss = (w**2).sum()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
print(w)
q = torch.ones(2, 3)
qd = q.data
q.data = torch.zeros(3)
print(q, qd)
