# Physics-informed networks, as the PINN tutorials write the residual of u'' = -u:
# du/dx = autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0],
# the same again for d2u/dx2, and the residual loss trained by gradient steps
import torch

x = torch.linspace(0.0, 1.0, 5).reshape(-1, 1)
x.requires_grad_(True)
W1 = torch.tensor([[0.5, -1.0, 0.8]], requires_grad=True)
b1 = torch.tensor([0.1, 0.2, -0.3], requires_grad=True)
W2 = torch.tensor([[1.0], [0.5], [-0.7]], requires_grad=True)
params = [W1, b1, W2]

for epoch in range(4):
    u = torch.tanh(x @ W1 + b1) @ W2
    du = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    d2u = torch.autograd.grad(du, x, grad_outputs=torch.ones_like(du), create_graph=True)[0]
    residual = d2u + u
    loss = (residual**2).mean()
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= 0.05 * p.grad
            p.grad.zero_()
    print(f"epoch {epoch}: loss {loss.item():.6f}")
print(du.grad_fn.name(), d2u.grad_fn.name())
print(u)
print(d2u)
