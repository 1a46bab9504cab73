# Python details tutorials lean on: print(*x.shape), f(*args), isinstance(x, torch.Tensor),
# strides and contiguity, except AttributeError / KeyError; torch.outer (ViewBackward0, MulBackward0).
import torch
x = torch.arange(12.).reshape(3, 4)
print(*x.shape, sep=" x ")
print(x.is_contiguous(), x.t().is_contiguous(), x.stride(), x.t().stride(), x.stride(-1), x[:, 1].stride())
print(isinstance(x, torch.Tensor), isinstance(3, (int, float)), isinstance(True, int), isinstance([1], tuple))
def f(a, b, c):
    return a + b * c
args = [1, 2, 3]
print(f(*args), max(*args))
try:
    x.shape.nope
except AttributeError as e:
    print("AttributeError:", e)
d = {"a": 1}
try:
    d["b"]
except KeyError as e:
    print("KeyError:", e)
a = torch.tensor([1., 2., 3.], requires_grad=True)
b = torch.tensor([4., 5.], requires_grad=True)
o = torch.outer(a, b)
print(o, o.grad_fn.name(), o.grad_fn.next_functions[0][0].name())
(o * o).sum().backward()
print(a.grad, b.grad, a.outer(b).shape)
