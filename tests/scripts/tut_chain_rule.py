# Chain rule on a small network, float64 and printing of shapes and dtypes
import torch
import torch.nn.functional as F

x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=torch.float64)
W1 = torch.tensor([[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]], dtype=torch.float64, requires_grad=True)
W2 = torch.tensor([[0.7], [-0.8]], dtype=torch.float64, requires_grad=True)
h = torch.tanh(x @ W1)
out = torch.sigmoid(h @ W2)
target = torch.tensor([[1.0], [0.0]], dtype=torch.float64)
loss = F.mse_loss(out, target)
print(loss)
loss.backward()
print(W1.grad)
print(W2.grad)
print(h.shape, out.dtype, x.dtype, W1.grad.dtype)
print(out.size(0), out.dim(), out.numel(), len(x))
print(h.grad_fn, h.grad_fn.name())
