# A parameter watched through NumPy while it trains (the "tensor and array share memory" note
# of the 60 Minute Blitz, met in a loop): w.detach().numpy() keeps showing w after each
# in-place update, and a tensor made by from_numpy feeds the forward pass.
import numpy as np
import torch

inputs = np.array([[0.5, -1.0], [1.5, 2.0], [-0.5, 0.25]], dtype=np.float32)
targets = np.array([1.0, -2.0, 0.5], dtype=np.float32)
x = torch.from_numpy(inputs)
y = torch.from_numpy(targets)
w = torch.tensor([0.1, -0.2], requires_grad=True)
watch = w.detach().numpy()
history = []
for step in range(4):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
    history.append(watch.copy())
    print(step, round(loss.item(), 6), watch)
print(np.array(history).round(5))
inputs[0, 0] = 10.0
print(x[0], (x @ w).detach().numpy().round(4))
grads = []
for row in x:
    z = torch.tensor(row.numpy(), requires_grad=True)
    (z**2).sum().backward()
    grads.append(z.grad.numpy())
print(np.stack(grads), np.mean(grads, axis=0))
print(id(w) == id(w), id(x) == id(y), len(set([id(t) for t in [w, w, x]])))
before = id(w)
w = w + 1
print(id(w) == before)
print(list(map(float, targets)), list(map(lambda v: v * 2, [1, 2])))
