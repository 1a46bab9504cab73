# Details a learner's script meets: integer results stay integers, .contiguous() copies a
# transposed tensor, x.device prints cpu, a failed autograd.grad keeps the graph, IndexError
# for indices and class targets out of range, and rows picked with range(n) or arange(n)
import torch
import torch.nn.functional as F
a = torch.tensor([[1, 2], [3, 4]])
print(a @ a)
print(a.max(1).values, torch.max(a, 0))
print(a.clamp(2, 3), torch.cat([a, a]), a.masked_fill(a > 2, -1), torch.relu(a - 2), a.sign())
print(torch.tensor([True, False]) + torch.tensor([True, True]))
print(torch.tensor([True, False]) * torch.tensor([True, True]))
print(a * 2.0, a / 2, a.sum(), (a > 1).sum(), a.float().mean(), torch.arange(6).max(0))
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
t = torch.tensor([0.0, 1.0])
try:
    print(F.cross_entropy(x, t))
except RuntimeError as e:
    print("E", e)
try:
    print(F.nll_loss(x, t))
except RuntimeError as e:
    print("E", e)
try:
    print(x @ a)
except RuntimeError as e:
    print("E", e)
try:
    print(torch.where(x, x, 0.0))
except RuntimeError as e:
    print("E", e)
x = torch.tensor([1.0])
print(x.device, f"{x.device}")
a = torch.tensor(1.0, requires_grad=True); b = torch.tensor(2.0, requires_grad=True)
z = a * a
try:
    torch.autograd.grad(z, b)
except RuntimeError as e:
    print("unused")
print(torch.autograd.grad(z, [a, b], allow_unused=True))
w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
c = w.t().contiguous()
print(c.grad_fn.name())
print(c.view(-1))
print(w.contiguous() is w)
print("start")
try:
    F.cross_entropy(torch.zeros(1, 3), torch.tensor([3]))
except IndexError as e:
    print("caught", e)
x = torch.ones(2, 2)
for f in range(3):
    try:
        if f == 0:
            x[2]
        elif f == 1:
            x[:, 2]
        else:
            torch.arange(3)[3]
    except IndexError as e:
        print(e)
try:
    F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0]))
except RuntimeError as e:
    print("bce", e)
probs = torch.tensor([[0.2, 0.8], [0.6, 0.4]], requires_grad=True)
ys = torch.tensor([1, 0])
a = probs[range(2), ys]
b = probs[torch.arange(2), ys]
print(a)
print(b)
loss = -(a.log().mean() + b.log().mean())
loss.backward()
print(probs.grad)
print(probs[[0, 1], [1, 1]], probs[range(2)])
