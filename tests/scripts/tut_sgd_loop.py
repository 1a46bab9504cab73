# Linear regression by hand: an SGD loop of 100 steps on small tensors
import torch

X = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
Y = torch.tensor([[2.0], [4.0], [6.0], [8.0]])
w = torch.tensor([[0.0]], requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.01
for epoch in range(100):
    y_pred = X @ w + b
    loss = ((y_pred - Y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    if epoch % 10 == 0:
        print(f"epoch {epoch}: loss = {loss.item():.6f}, w = {w.item():.4f}")
print(w, b)
print(f"prediction for 5: {(torch.tensor([[5.0]]) @ w + b).item():.4f}")
