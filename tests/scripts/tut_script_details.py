# Details of Python and torch that tutorials lean on: enumerate(xs, 1), torch.set_grad_enabled
# as a call, a hook factory reading its enclosing def's argument, d[range(n), idx] = v,
# the version counter x._version, and .mT of a batch.
import torch
for k, v in enumerate([10, 20], 1):
    print(k, v)
print(list(enumerate("ab", start=5)))
w = torch.tensor([1.0, 2.0], requires_grad=True)
torch.set_grad_enabled(False)
c = w + 1
torch.set_grad_enabled(True)
d = w + 1
print(c.requires_grad, d.requires_grad, torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    e = w ** 2
print(e.requires_grad, torch.is_grad_enabled())
def outer(n):
    def inner(v):
        return n * v
    return inner(3)
print(outer(2))
def make_hook(scale):
    def hook(g):
        return g * scale
    return hook
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.register_hook(make_hook(10.0))
y.sum().backward()
print(x.grad)
dd = torch.zeros(3, 4)
dd[range(3), torch.tensor([3, 0, 2])] = -1.0
print(dd)
b = torch.zeros(3)
b.add_(1)
b[0] = 2
print(b._version)
print(torch.arange(24.).reshape(2, 3, 4).mT.shape, torch.ones(2, 3).mT.shape)
