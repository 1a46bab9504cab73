# Modelled on the torch.autograd.functional docs and tutorials that pass lambdas: jacobian(lambda t: t ** 2, x)
import torch
from torch.autograd.functional import jacobian, hessian
x = torch.tensor([1.0, 2.0, 3.0])
print(jacobian(lambda t: t ** 2, x))
print(hessian(lambda t: (t ** 3).sum(), x))
scale = 3.0
f = lambda t, k=2: (t * scale) ** k
print(f(x), f(x, k=1), f.__name__)
pairs = sorted([(2, "b"), (1, "a")])
print(pairs, list(map(lambda v: v * 2, [1, 2])) if False else [v * 2 for v in [1, 2]])
loss_fn = lambda pred, y: ((pred - y) ** 2).mean()
w = torch.tensor([0.5], requires_grad=True)
loss = loss_fn(w * x, torch.tensor([2.0, 4.0, 6.0]))
loss.backward()
print(loss.item(), w.grad)
