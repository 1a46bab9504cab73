# torch.autograd.grad, retain_graph and non-leaf gradients with retain_grad
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
z = y.sum()
(gx,) = torch.autograd.grad(z, x, retain_graph=True)
print(gx, x.grad)
gy = torch.autograd.grad(z, [y], retain_graph=True)
print(gy)
g2 = torch.autograd.grad(outputs=(x * 3).sum(), inputs=x)
print(g2[0])
y.retain_grad()
z.backward()
print(y.grad, x.grad, y.is_leaf, x.is_leaf, z.is_leaf)
print(y.requires_grad, z.grad_fn.name(), y.grad_fn.name())
try:
    torch.autograd.grad(z, x)
except RuntimeError as e:
    print("second:", e)
w = torch.tensor(1.0, requires_grad=True)
try:
    torch.autograd.grad((x * 2).sum(), w)
except RuntimeError as e:
    print("unused:", e)
