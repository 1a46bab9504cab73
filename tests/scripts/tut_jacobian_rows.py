# The Jacobian row by row with torch.autograd.grad, one-hot grad_outputs and
# retain_graph=True, as in the Stack Overflow question "How to compute the Jacobian
# of a vector function in PyTorch" before torch.autograd.functional existed
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
W = torch.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, 1.0]])
y = torch.tanh(W @ x) * x[:2]
jacobian = []
for i in range(y.shape[0]):
    onehot = torch.zeros_like(y)
    onehot[i] = 1.0
    (row,) = torch.autograd.grad(y, x, grad_outputs=onehot, retain_graph=True)
    jacobian.append(row)
    print(f"row {i}:", row)
J = torch.stack(jacobian)
print(J)
v = torch.tensor([1.0, 1.0])
y.backward(v)
print(x.grad, v @ J)
