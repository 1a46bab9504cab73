# Modelled on d2l's layer-norm section and nanoGPT's LayerNorm written as F.layer_norm(x, (C,), weight, bias, 1e-5)
import torch
import torch.nn.functional as F
x = torch.tensor([[1.0, 2.0, 4.0, 7.0], [-1.0, 0.5, 0.0, 3.0]], requires_grad=True)
gamma = torch.tensor([1.0, 0.5, 2.0, -1.0], requires_grad=True)
beta = torch.tensor([0.1, 0.0, -0.2, 0.3], requires_grad=True)
y = F.layer_norm(x, (4,), gamma, beta, 1e-5)
print(y, y.grad_fn.name())
(y * torch.arange(8.0).reshape(2, 4)).sum().backward()
print(x.grad, gamma.grad, beta.grad)
z = F.layer_norm(x, [4])
print(z, z.grad_fn.name())
h = torch.linspace(-1.0, 2.0, 24).reshape(2, 3, 4).requires_grad_()
out = F.layer_norm(h, (3, 4), eps=1e-6)
(out * torch.linspace(0.0, 1.0, 24).reshape(2, 3, 4) ** 2).sum().backward()
print(out[0, 0], h.grad[1, 2])
print(F.layer_norm(x, (4,), weight=gamma)[0])
for bad in range(2):
    try:
        if bad == 0:
            F.layer_norm(x, (3,))
        else:
            F.layer_norm(x, (4,), torch.ones(3))
    except RuntimeError as e:
        print(e)
