# Logistic regression from scratch (d2l-style and "PyTorch for deep learning" courses):
# sigmoid, binary cross-entropy written out, 100 steps of gradient descent with
# torch.no_grad(), then accuracy on the training points
import torch

X = torch.tensor([[0.5, 1.0], [1.0, 1.5], [1.5, 0.5], [3.0, 3.5], [3.5, 2.5], [4.0, 3.0]])
y = torch.tensor([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
w = torch.tensor([0.1, -0.1], requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
lr = 0.5
losses = []
for epoch in range(100):
    p = torch.sigmoid(X @ w + b)
    loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
    loss.backward()
    with torch.no_grad():
        w.sub_(lr * w.grad)
        b.sub_(lr * b.grad)
    w.grad.zero_()
    b.grad.zero_()
    losses.append(round(loss.item(), 4))
print(losses[::20])
with torch.no_grad():
    predictions = (torch.sigmoid(X @ w + b) > 0.5).float()
print(predictions, (predictions == y).float().mean())
print(w, b)
