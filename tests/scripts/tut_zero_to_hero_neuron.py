# Neural Networks: Zero to Hero, lecture 1 (micrograd): one tanh neuron, "doing the same
# thing in PyTorch" at the end of the lecture, then a tiny MLP trained by hand
import torch

x1 = torch.Tensor([2.0]).double()
x1.requires_grad = True
x2 = torch.Tensor([0.0]).double()
x2.requires_grad = True
w1 = torch.Tensor([-3.0]).double()
w1.requires_grad = True
w2 = torch.Tensor([1.0]).double()
w2.requires_grad = True
b = torch.Tensor([6.8813735870195432]).double()
b.requires_grad = True
n = x1 * w1 + x2 * w2 + b
o = torch.tanh(n)

print(o.data.item())
o.backward()

print("---")
print("x2", x2.grad.item())
print("w2", w2.grad.item())
print("x1", x1.grad.item())
print("w1", w1.grad.item())

# the lecture's dataset and a 3-4-4-1 MLP, weights written out instead of random
xs = torch.tensor([[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]])
ys = torch.tensor([1.0, -1.0, -1.0, 1.0])
W1 = torch.tensor([[0.1, -0.2, 0.3, 0.05], [0.2, 0.1, -0.1, 0.3], [-0.3, 0.2, 0.1, -0.2]], requires_grad=True)
b1 = torch.zeros(4, requires_grad=True)
W2 = torch.tensor([[0.2, -0.1, 0.3, 0.1], [-0.2, 0.3, 0.1, 0.2], [0.1, 0.1, -0.3, 0.2], [0.3, -0.2, 0.2, -0.1]], requires_grad=True)
b2 = torch.zeros(4, requires_grad=True)
W3 = torch.tensor([[0.5], [-0.4], [0.3], [0.2]], requires_grad=True)
b3 = torch.zeros(1, requires_grad=True)
params = [W1, b1, W2, b2, W3, b3]
for k in range(20):
    h1 = torch.tanh(xs @ W1 + b1)
    h2 = torch.tanh(h1 @ W2 + b2)
    ypred = torch.tanh(h2 @ W3 + b3).squeeze(1)
    loss = ((ypred - ys) ** 2).sum()
    for p in params:
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in params:
            p += -0.1 * p.grad
    if k % 5 == 0:
        print(k, f"{loss.item():.4f}")
print(ypred)
