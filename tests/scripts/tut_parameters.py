# Modelled on d2l's and the PyTorch tutorials' parameters made by hand: nn.Parameter(torch.zeros(...)) and a manual update
import torch
from torch import nn
w = nn.Parameter(torch.tensor([1.0, -2.0]))
b = torch.nn.Parameter(torch.zeros(1))
print(w)
print(b, w.requires_grad, w.is_leaf, type(w).__name__, isinstance(w, torch.Tensor), type(w * 2).__name__)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
loss = ((x @ w + b) ** 2).mean()
loss.backward()
print(w.grad, b.grad)
with torch.no_grad():
    w -= 0.1 * w.grad
print(w)
frozen = nn.Parameter(torch.ones(2), requires_grad=False)
print(frozen, [p.shape for p in [w, b]])
print(w.detach(), w.data)
