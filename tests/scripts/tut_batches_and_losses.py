# Mini-batches picked with % and //, and float32 losses printed to the last digit, the way
# "learning PyTorch with examples" and d2l's linear regression from scratch write them.
import torch

x = torch.linspace(-1.0, 1.0, 40)
y = 3.0 * x - 0.7 + 0.05 * torch.sin(17.0 * x)
w = torch.tensor(0.1, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)

steps = torch.arange(40)
even = steps % 2 == 0
print(steps % 7, steps // 7, (x * 10) % 3, torch.fmod(x * 10, 3))
print(even.sum(), x[even].mean(), x[~even].sum())

for epoch in range(3):
    for batch in range(4):
        rows = steps // 10 == batch
        pred = w * x[rows] + b
        loss = ((pred - y[rows]) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.5 * w.grad
            b -= 0.5 * b.grad
            w.grad.zero_()
            b.grad.zero_()
    full = ((w * x + b - y) ** 2).mean()
    print(epoch, full.item(), full, w.item(), b.item())

residual = (w * x + b - y).detach()
print(residual.sum(), residual.abs().mean().item(), (residual ** 2).sum(dim=0, keepdim=True))
grid = (x.reshape(4, 10) * 3) % 1
print(grid.sum(0), grid.sum(1), grid.mean())
