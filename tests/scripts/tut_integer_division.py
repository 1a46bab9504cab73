# Modelled on the unravel-index idiom of older tutorials: row = torch.div(i, n, rounding_mode='floor'), col = i % n
import torch
a = torch.tensor([7, -7])
b = torch.tensor([2, 0])
for m in ["floor", "trunc"]:
    try:
        print(torch.div(a, b, rounding_mode=m))
    except RuntimeError as e:
        print(type(e).__name__, e)
print(torch.div(a, 2, rounding_mode="floor"), torch.div(a, 2, rounding_mode="trunc"), a.div(2, rounding_mode=None), torch.div(a, 2.0, rounding_mode="floor"))
x = torch.tensor([7.5, -7.5], requires_grad=True)
y = torch.div(x, 2, rounding_mode="trunc")
print(y, y.grad_fn.name())
y.sum().backward()
print(x.grad)
print(x.div(2, rounding_mode="floor").grad_fn.name(), torch.true_divide(x, 2).grad_fn.name())
idx = torch.tensor([5, 11, 3])
print(torch.div(idx, 4, rounding_mode="floor"), idx % 4)
