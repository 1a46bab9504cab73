# 1,000-step linear regression as d2l writes it from scratch (manual SGD)
import torch
torch.manual_seed(0)
X = torch.randn(1000, 2)
true_w = torch.tensor([2.0, -3.4])
y = X @ true_w + 4.2 + 0.01 * torch.randn(1000)
w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for epoch in range(1000):
    l = ((X @ w + b - y) ** 2 / 2).mean()
    l.backward()
    with torch.no_grad():
        w -= 0.03 * w.grad
        b -= 0.03 * b.grad
        w.grad.zero_()
        b.grad.zero_()
    if epoch % 200 == 199:
        print(epoch, f"{l.item():.6f}")
print(w, b)
