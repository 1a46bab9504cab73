# Modelled on the torch.linalg docs and tutorials that normalise rows by hand: x / torch.linalg.norm(x, dim=1, keepdim=True)
import torch
x = torch.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], requires_grad=True)
print(torch.linalg.norm(x), torch.linalg.norm(x, dim=1), torch.linalg.vector_norm(x, ord=3))
print(torch.linalg.vector_norm(x, float("inf"), dim=0), torch.linalg.norm(x, dim=(0, 1)), torch.linalg.norm(x[0], ord=1))
n = torch.linalg.norm(x, dim=1, keepdim=True)
(x / n).sum().backward()
print(n.grad_fn.name(), x.grad)
try:
    torch.linalg.norm(torch.ones(2, 2, 2), ord=2)
except RuntimeError as e:
    print(e)
