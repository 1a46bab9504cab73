# torch.clamp with tensor bounds (clamp.Tensor): ClampBackward0, gradients to the bounds
import torch
x = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
lo = torch.tensor([0.0, 0.0, 1.0], requires_grad=True)
hi = torch.tensor([1.0, 5.0, 2.0], requires_grad=True)
y = torch.clamp(x, lo, hi)
print(y, y.grad_fn.name(), len(y.grad_fn.next_functions))
z = x.clamp(min=lo)
print(z)
print(z.grad_fn.next_functions[2][0])
(y.sum() + z.sum()).backward()
print(x.grad, lo.grad, hi.grad)
