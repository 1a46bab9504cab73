# Softmax regression: cross entropy, gradient steps with torch.no_grad and zero_
import torch
import torch.nn.functional as F

X = torch.tensor([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0], [-2.0, -1.0], [0.5, -0.5], [-0.5, 0.5]])
labels = torch.tensor([0, 0, 1, 1, 2, 2])
W = torch.zeros(2, 3, requires_grad=True)
b = torch.zeros(3, requires_grad=True)
for step in range(30):
    logits = X @ W + b
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    with torch.no_grad():
        W -= 0.5 * W.grad
        b -= 0.5 * b.grad
        W.grad.zero_()
        b.grad.zero_()
    if step % 5 == 4:
        print(step + 1, round(loss.item(), 4))
probs = F.softmax(X @ W + b, dim=1)
print(probs[:, 0:2])
print(W[:, 0:2], W.grad)
