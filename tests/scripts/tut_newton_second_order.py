# Newton's method for minimisation with autograd, as blog posts on "second-order
# optimisation in PyTorch" write it: the first derivative with create_graph=True,
# the second by differentiating it, x <- x - f'(x) / f''(x) under no_grad
import torch


def f(x):
    return x**4 - 3 * x**2 + x


x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
for step in range(6):
    (d1,) = torch.autograd.grad(f(x), x, create_graph=True)
    (d2,) = torch.autograd.grad(d1, x)
    with torch.no_grad():
        x -= d1 / d2
    print(f"step {step}: x = {x.item():.10f}  f'(x) = {d1.item():.3e}")
print(x)

# two variables: the Hessian from the gradient, one row per grad call
p = torch.tensor([1.0, 1.0], dtype=torch.float64, requires_grad=True)


def bowl(p):
    return (1 - p).pow(2).sum() + (p * p).sum() ** 2


g = torch.autograd.grad(bowl(p), p, create_graph=True)[0]
print(g)
H = torch.stack(
    [torch.autograd.grad(g, p, grad_outputs=e, retain_graph=True)[0] for e in torch.eye(2, dtype=torch.float64)]
)
print(H)
