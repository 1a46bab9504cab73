# Hessian-vector products by double backward, as in the PyTorch forum thread
# "Calculating Hessian Vector Product" and torch.autograd.functional.hvp's docs:
# grad of (grad(f) . v), with create_graph=True on the first call
import torch

x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
A = torch.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, -1.0], [0.0, -1.0, 4.0]])


def f(x):
    return 0.5 * (x @ A @ x) + (x**4).sum() + torch.exp(x).sum()


loss = f(x)
(grad,) = torch.autograd.grad(loss, x, create_graph=True)
print("grad", grad)
v = torch.tensor([1.0, 0.0, -1.0])
(hv,) = torch.autograd.grad(grad @ v, x, retain_graph=True)
print("Hv (dot form)", hv)
(hv2,) = torch.autograd.grad(grad, x, grad_outputs=v)
print("Hv (grad_outputs form)", hv2)

rows = []
for i in range(3):
    e = torch.zeros(3)
    e[i] = 1.0
    (row,) = torch.autograd.grad(torch.autograd.grad(f(x), x, create_graph=True)[0], x, grad_outputs=e)
    rows.append(row.tolist())
for row in rows:
    print(" ".join(f"{value:8.3f}" for value in row))
