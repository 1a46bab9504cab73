# MAML's inner loop with second-order gradients (Finn et al. 2017, as the PyTorch
# MAML-from-scratch tutorials write it): a fast weight w - lr * grad(create_graph=True),
# the outer loss back-propagated through it; then the errors and derivatives around it
import torch
w = torch.tensor([0.5, -0.3], requires_grad=True)
xs = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
ys = torch.tensor([1.0, 0.0])
for step in range(3):
    inner = ((xs @ w - ys) ** 2).mean()
    g, = torch.autograd.grad(inner, w, create_graph=True)
    w_fast = w - 0.1 * g
    outer = ((xs @ w_fast - ys) ** 2).mean()
    outer.backward()
    print(step, g, w_fast, outer)
    with torch.no_grad():
        w -= 0.05 * w.grad
    w.grad.zero_()
print(w)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 2).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
with torch.no_grad():
    x.mul_(2)
try:
    g.sum().backward()
except RuntimeError as e:
    print(e)
a = torch.tensor(1.0, requires_grad=True)
b = a * a
b.backward(create_graph=True)
print(a.grad)
a.grad.backward()
print(a.grad)
c = torch.relu(a * 3) + torch.sigmoid(a) * torch.log(a + 1) - a.sqrt() / (a + 2)
d, = torch.autograd.grad(c, a, create_graph=True)
e, = torch.autograd.grad(d, a)
print(d, e)
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
n = (m @ m.t()).sum() + (m.exp() * m).mean() + m.pow(3).sum(dim=0).sum()
gm, = torch.autograd.grad(n, m, create_graph=True)
print(gm)
hm, = torch.autograd.grad(gm.sum(), m)
print(hm)
