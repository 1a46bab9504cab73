# Attention-style products as nanoGPT and d2l write them: q @ k.transpose(-2, -1), wei @ x
# (a matrix times a batch), 4-D heads, batch-of-one broadcasting and vectors; each chain of
# grad_fn names is at::matmul's (fold into one mm, or expand/reshape/bmm/unsafe_view).
import torch
def chain(fn, d=0):
    if fn is None: return
    print('  ' * d + fn.name())
    for f, _ in fn.next_functions: chain(f, d + 1)
q = torch.arange(24.).reshape(2, 3, 4).requires_grad_(True)
k = (torch.arange(24.).reshape(2, 3, 4) % 5).requires_grad_(True)
wei = (torch.arange(9.).reshape(3, 3) % 4).requires_grad_(True)
x1 = torch.ones(1, 3, 4, requires_grad=True)
W = (torch.arange(15.).reshape(3, 5) % 3).requires_grad_(True)
B1 = torch.ones(1, 4, 5, requires_grad=True)
C4 = torch.ones(2, 2, 3, 4, requires_grad=True)
v = torch.tensor([1., 2., 3., 4.], requires_grad=True)
cases = [q @ k.transpose(-2, -1), wei @ k, wei @ x1, q.transpose(1, 2) @ W, q @ B1, C4 @ B1, C4 @ k.transpose(-2, -1)[:1], q @ v, torch.tensor([1., 0., 2.]) @ q, C4 @ C4.transpose(-2, -1)]
total = 0
for c in cases:
    print(c.shape)
    chain(c.grad_fn)
    total = total + c.sum()
total.backward()
print(q.grad, k.grad, wei.grad, W.grad, v.grad)
with torch.no_grad():
    print((q @ k.transpose(-2, -1)).sum())
