# WGAN-GP's gradient penalty (Gulrajani et al. 2017) as PyTorch implementations write it:
# torch.autograd.grad(outputs=d, inputs=interpolates, grad_outputs=ones, create_graph=True),
# then ((gradients.norm(2, dim=1) - 1) ** 2).mean() back-propagated into the critic
import torch

real = torch.tensor([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
fake = torch.tensor([[0.0, 1.0], [1.5, 0.5], [-1.0, 1.0]])
alpha = torch.tensor([[0.25], [0.5], [0.75]])
W1 = torch.tensor([[0.3, -0.2, 0.5], [0.1, 0.4, -0.3]], requires_grad=True)
b1 = torch.tensor([0.1, 0.0, -0.1], requires_grad=True)
W2 = torch.tensor([[0.7], [-0.5], [0.2]], requires_grad=True)


def critic(x):
    h = torch.tanh(x @ W1 + b1)
    return h @ W2


interpolates = alpha * real + (1 - alpha) * fake
interpolates.requires_grad_(True)
d = critic(interpolates)
gradients = torch.autograd.grad(
    outputs=d,
    inputs=interpolates,
    grad_outputs=torch.ones_like(d),
    create_graph=True,
    retain_graph=True,
)[0]
print(gradients)
penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
print(f"penalty {penalty.item():.6f} loss {loss.item():.6f}")
loss.backward()
print(W1.grad)
print(b1.grad)
print(W2.grad)
with torch.no_grad():
    for p in [W1, b1, W2]:
        p -= 0.01 * p.grad
        p.grad.zero_()
print(W2)
