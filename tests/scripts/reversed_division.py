# number / tensor is tensor.reciprocal() * number in torch: MulBackward0 -> ReciprocalBackward0.
import torch

x = torch.tensor([7.0, 0.3, 49.0, -2.5], dtype=torch.float64, requires_grad=True)
for y in (1 / x, 2 / x, 1.0 / x, -3.5 / x, 2 / (x * x)):
    print(y.grad_fn.name(), [f[0].name() if f[0] is not None else None for f in y.grad_fn.next_functions])
    inner = y.grad_fn.next_functions[0][0]
    print(" ", inner.name(), [f[0].name() if f[0] is not None else None for f in inner.next_functions])
    print(" ", y)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    print(" ", g, g.grad_fn.name())
    (h,) = torch.autograd.grad(g.sum(), x)
    print(" ", h)
z = torch.tensor(0.75, requires_grad=True)
w = 3 / z
w.backward()
print(w, z.grad)
