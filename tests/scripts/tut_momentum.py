# d2l.ai 12.6 "Momentum" from scratch (its hyperparams dict as two numbers): velocity
# states updated in place under torch.no_grad(), on a least-squares problem, 100 steps
import torch

X = torch.tensor([[1.0, 2.0], [2.0, 0.5], [3.0, -1.0], [4.0, 1.5], [0.5, 0.5]])
y = torch.tensor([5.0, 3.5, 1.0, 7.5, 2.0])
w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
states = [torch.zeros(2), torch.zeros(1)]
lr, momentum = 0.01, 0.9


def sgd_momentum(params, states, lr, momentum):
    for p, v in zip(params, states):
        with torch.no_grad():
            v[:] = momentum * v + p.grad
            p[:] -= lr * v
        p.grad.data.zero_()


for step in range(100):
    loss = ((X @ w + b - y) ** 2).mean()
    loss.backward()
    sgd_momentum([w, b], states, lr, momentum)
    if step % 20 == 0:
        print(f"step {step:3d} loss {loss.item():.5f}")
print(w, b)
print(states)
