# Batched products, as attention code writes them: A @ B of 3-D tensors and torch.bmm
# (UnsafeViewBackward0, BmmBackward0), and a batch of rows times a matrix, A @ W.
# Whole-number inputs keep float32 sums exact whatever order BLAS adds in.
import torch


def chain(fn, d=0):
    if fn is None: return
    print('  ' * d + fn.name())
    for f, _ in fn.next_functions: chain(f, d + 1)
A = torch.arange(24.0).reshape(2, 3, 4).requires_grad_(True)
B = (torch.arange(40.0).reshape(2, 4, 5) % 7 - 3).requires_grad_(True)
W = (torch.arange(20.0).reshape(4, 5) % 5 - 2).requires_grad_(True)
C = A @ B
chain(C.grad_fn)
D = A @ W
chain(D.grad_fn)
E = torch.bmm(A, B)
print(E.grad_fn, A.bmm(B).shape)
(C.sum() + (D * D).sum() + E.sum()).backward()
print(A.grad, B.grad, W.grad)
v = torch.tensor([1.0, 2.0], requires_grad=True)
M = torch.ones(2, 3, requires_grad=True)
chain((v @ M).grad_fn)
try:
    torch.bmm(A, W)
except RuntimeError as e:
    print("RuntimeError:", e)
