"""grad_fn.next_functions walks the graph back to AccumulateGrad, entry for entry as PyTorch lists them."""

import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.tensor([3.0, 4.0])
cases = [
    ("x*2", x * 2),
    ("2*x", 2 * x),
    ("x+2", x + 2),
    ("x-2", x - 2),
    ("2-x", 2 - x),
    ("x**2", x**2),
    ("x/2", x / 2),
    ("x*c", x * c),
    ("c*x", c * x),
    ("x.sum()", x.sum()),
    ("x.mean()", x.mean()),
    ("x.exp()", x.exp()),
    ("x[0]", x[0]),
    ("where", torch.where(c > 3, x, c)),
    ("-x", -x),
    ("x+c", x + c),
    ("x*x", x * x),
]
for name, y in cases:
    print(name, y.grad_fn.name(), [(None if f is None else f.name(), i) for f, i in y.grad_fn.next_functions])
loss = ((x * 2).exp() + c).sum()
print(loss.grad_fn)
fn = loss.grad_fn
for depth in range(5):
    print(depth, fn.name(), len(fn.next_functions))
    if fn.next_functions:
        fn = fn.next_functions[0][0]
acc = (x * 2).grad_fn.next_functions[0][0]
print(acc.variable, acc.next_functions, acc.variable is x)
print((x * 2).grad_fn.next_functions)
