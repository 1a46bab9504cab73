# Small defs, newton's method with autograd.grad, print with sep and formats
import torch
import math


def f(x):
    return x**3 - 2 * x - 5


def newton(x0, steps=5):
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    for i in range(steps):
        y = f(x)
        (dy,) = torch.autograd.grad(y, x)
        with torch.no_grad():
            x -= y / dy
        print(i, f"{x.item():.10f}", sep=" -> ")
    return x


root = newton(2.0)
print("root", root, "residual", f"{abs(f(root).item()):.2e}")
print(round(math.sqrt(2), 4), math.pi, min(3, 1, 2), max([1.5, 2.5]), len([1, 2, 3]), int(3.7), float("2.5"))
print("{:.3f} and {}".format(1.23456, "x"), str(1e-5), 7 // 2, 7 % 3, 2**10, -3 / 2)
assert abs(f(root).item()) < 1e-9, "not converged"
