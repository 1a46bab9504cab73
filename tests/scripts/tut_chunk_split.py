# Splitting a tensor as data-loading and multi-head code does: chunk, split (sizes or a size)
# and unbind, each piece a view with the grad_fn torch names, gradients flowing back.
import torch
x = torch.arange(10., requires_grad=True)
a, b, c, d = x.chunk(4)
print(a, d, a.grad_fn.name(), a.grad_fn.next_functions[0][0].name())
parts = torch.split(x, 4)
print(len(parts), parts[-1], parts[0].grad_fn.name())
p, q = x.split([3, 7])
print(p, q.grad_fn.name())
m = x.reshape(2, 5)
rows = m.unbind(1)
print(len(rows), rows[2], rows[0].grad_fn.name())
(a.sum() * 2 + parts[1].sum() * 3 + (q * q).sum() + rows[4].sum()).backward()
print(x.grad)
print(torch.arange(5.).chunk(4), torch.chunk(torch.arange(6.).reshape(2, 3), 3, dim=1))
try:
    x.split([3, 3])
except RuntimeError as e:
    print("RuntimeError:", e)
