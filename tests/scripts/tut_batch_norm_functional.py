# Modelled on d2l's batch-normalization section written with F.batch_norm: training and eval mode, running stats updated in place
import torch
import torch.nn.functional as F
x = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0], [2.0, 0.0, 1.5], [-1.0, 1.0, 0.25]], requires_grad=True)
gamma = torch.tensor([1.0, 0.5, 2.0], requires_grad=True)
beta = torch.tensor([0.1, 0.0, -0.2], requires_grad=True)
running_mean = torch.zeros(3)
running_var = torch.ones(3)
y = F.batch_norm(x, running_mean, running_var, gamma, beta, training=True)
print(y, y.grad_fn.name())
print(running_mean, running_var)
(y * torch.arange(12.0).reshape(4, 3)).sum().backward()
print(x.grad, gamma.grad, beta.grad)
for step in range(3):
    F.batch_norm(x * (step + 1), running_mean, running_var, training=True, momentum=0.3)
print(running_mean, running_var)
z = F.batch_norm(x, running_mean, running_var, gamma, beta)
print(z, z.grad_fn.name())
h = torch.linspace(-1.0, 2.0, 24).reshape(2, 3, 4).requires_grad_()
out = F.batch_norm(h, None, None, training=True, eps=1e-3)
(out ** 2 * torch.linspace(0.0, 1.0, 24).reshape(2, 3, 4)).sum().backward()
print(out[0, 0], h.grad[1, 2])
for bad in range(3):
    try:
        if bad == 0:
            F.batch_norm(x[:1], running_mean, running_var, training=True)
        elif bad == 1:
            F.batch_norm(x, torch.zeros(4), running_var)
        else:
            F.batch_norm(x, running_mean, running_var, torch.ones(2))
    except (RuntimeError, ValueError) as e:
        print(e)
