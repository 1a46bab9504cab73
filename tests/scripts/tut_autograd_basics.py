# PyTorch "A Gentle Introduction to torch.autograd" / autograd tutorial, fixed inputs
import torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a**3 - b**2
external_grad = torch.tensor([1.0, 1.0])
Q.backward(gradient=external_grad)
print(9 * a**2 == a.grad)
print(-2 * b == b.grad)
print(a.grad, b.grad)

x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.tensor(
    [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, -0.8, 0.9], [-1.0, 1.1, 1.2], [0.13, 0.14, -0.15]],
    requires_grad=True,
)
b = torch.tensor([0.01, -0.02, 0.03], requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {z.grad_fn.name()}")
print(f"Gradient function for loss = {loss.grad_fn.name()}")
loss.backward()
print(w.grad)
print(b.grad)
print(loss)

z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad)
