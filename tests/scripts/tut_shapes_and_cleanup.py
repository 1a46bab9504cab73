# Modelled on the PyTorch docs' examples for movedim, tensor_split, nan_to_num and torch.special,
# and on the ranking idiom `ranks = torch.empty_like(order); ranks[order] = torch.arange(n)`
import torch

x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
y = x.movedim(0, -1)
print(y.shape, y.grad_fn.name(), torch.moveaxis(x, (0, 1), (2, 0)).shape, x.movedim(1, 1).grad_fn.name())
(y * torch.arange(24.0).reshape(3, 4, 2)).sum().backward()
print(x.grad[0])
for bad in range(4):
    try:
        if bad == 0:
            x.movedim(0, 5)
        elif bad == 1:
            x.movedim((0, 0), (1, 2))
        elif bad == 2:
            x.movedim((0, 1), (1,))
        else:
            x.sum(3)
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)

v = torch.tensor([1.0, float("nan"), float("inf"), -float("inf")], requires_grad=True)
w = torch.nan_to_num(v)
print(w, v.nan_to_num(nan=2.0, posinf=9.0).grad_fn.name())
(w * 3).sum().backward()
print(v.grad)
print(torch.nan_to_num(torch.tensor([float("inf")], dtype=torch.float64)))

s = torch.arange(7.0, requires_grad=True)
parts = torch.tensor_split(s, 3)
print(parts)
print(s.tensor_split([1, 5]), s.tensor_split((2, -1, 9)), s.tensor_split([4, 2]))
m = torch.arange(12.0).reshape(3, 4)
print(torch.tensor_split(m, 2, dim=1), torch.tensor_split(m, 5))
(parts[0].sum() * 2 + parts[2].sum()).backward()
print(s.grad)

scores = torch.tensor([0.3, 2.5, -1.0, 0.9])
order = scores.argsort()
ranks = torch.empty_like(order)
ranks[order] = torch.arange(len(scores))
print(order, ranks, torch.empty(2, 3).shape)

z = torch.tensor([0.0, 2.0, -1.5], requires_grad=True)
print(torch.special.expit(z), torch.special.erf(z), torch.special.exp2(z))
print(torch.special.logsumexp(z, 0), torch.special.softmax(z, 0), torch.special.log_softmax(z, dim=0))
torch.special.expm1(z).sum().backward()
print(z.grad, type(z).__name__, type(z.grad_fn).__name__ if z.grad_fn else None)
