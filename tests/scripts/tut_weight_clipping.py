# In-place activations and weight clipping, the way the WGAN paper's critic update and
# tutorials on in-place ops write them: p.data.clamp_(-c, c) after each step, x.relu_().
import torch

w = torch.tensor([[0.8, -1.4, 0.3], [2.2, -0.1, -0.9]], requires_grad=True)
x = torch.tensor([[1.0, 0.5], [-0.5, 2.0], [0.25, -1.0], [1.5, 1.5]])
for step in range(4):
    hidden = x @ w
    hidden.relu_()
    score = hidden.mean() - 0.1 * (w ** 2).sum()
    (-score).backward()
    with torch.no_grad():
        w -= 0.2 * w.grad
        w.grad.zero_()
    w.data.clamp_(-0.5, 0.5)
    print(step, f"{score.item():.6f}", hidden.grad_fn.name())
print(w)

z = torch.tensor([0.5, -2.0, 1.25], requires_grad=True)
try:
    z.relu_()
except RuntimeError as e:
    print("leaf:", e)
a = (z * 1).exp_()
b = (z * 1).clamp_(min=0.0)
(a.sum() + b.sum()).backward()
print(a, b, z.grad)
