import torch

# Create a tensor with gradient tracking
x = torch.tensor(2.0, requires_grad=True)
# Define a function y = 3 * x^2
y = 3 * x**2
# Compute gradients (dy/dx)
y.backward()
print(f"Gradient dy/dx at x=2: {x.grad.item()}")

# Wrong: backward on non-scalar without gradient argument
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
try:
    y.backward()
except RuntimeError as e:
    print(f"Error: {e}")
# Right: provide gradient argument
y.backward(torch.tensor([1.0, 1.0, 1.0]))
print(f"Gradients: {x.grad}")
