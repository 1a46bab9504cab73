# Modelled on PyTorch's Tensor Views page and the autograd-mechanics FAQ: narrow, _base, is_cuda checks, sums over dim=()
import torch
x = torch.ones(2, 3)
h = x.view(6)
print(x.is_cuda, x.itemsize, x.nbytes, h._base is x, x._base, x.detach()._base)
if x.is_cuda:
    print("on gpu")
else:
    print("cpu")
x = torch.arange(12.0, requires_grad=True).reshape(3, 4)
y = x.narrow(1, 1, 2)
print(y, y.grad_fn.name(), torch.narrow(x, 0, -2, 2), x.narrow(0, 0, 0).shape)
(y * 2).sum().backward() if False else None
for a in [(1, 5, 1), (1, 1, 5), (3, 0, 1), (1, -5, 1), (0, 1, -1)]:
    try:
        x.narrow(*a)
    except (IndexError, RuntimeError) as e:
        print(type(e).__name__, e)
x = torch.tensor([[1., 2., 3.], [4., 5., 7.]], requires_grad=True)
y = x.sum(dim=()) + x.mean(dim=[])
print(y)
y.backward()
print(x.grad, x.sum(dim=(), keepdim=True))
