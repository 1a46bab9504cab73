# Modelled on the NLP tutorials that pad sequences to one length (F.pad, value=0), and the F.pad docs
import torch
import torch.nn.functional as F
x = torch.arange(6.0).reshape(2, 3).requires_grad_()
print(F.pad(x, (1, 1)))
p2 = F.pad(x, (0, 2, 1, 0), value=-1.0)
print(p2)
y = F.pad(x, (1, -1, 0, 1), value=-1.0)
(y * torch.arange(9.0).reshape(3, -1)).sum().backward()
print(x.grad)
print(F.pad(torch.ones(1, 3), (2, 0), mode="constant", value=9))
print(torch.constant_pad_nd(x, (1, 1)).grad_fn.name(), F.pad(x, [1, 1]).shape, F.pad(x, (0, 0)).grad_fn.name())
print(F.pad(x, (-2, -1)).shape, F.pad(x, (-3, 0)).shape)
xi = torch.tensor([[1, 2]])
print(F.pad(xi, (1, 1)), F.pad(xi, (1, 1), value=2.5))
seqs = [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0]), torch.tensor([5.0, 6.0])]
maxlen = max(len(s) for s in seqs)
batch = torch.stack([F.pad(s, (0, maxlen - len(s)), value=0) for s in seqs])
print(batch)
w = torch.tensor([1.0, -2.0], requires_grad=True)
g = torch.autograd.grad(F.pad(w, (1, 1)).pow(2).sum(), w, create_graph=True)[0]
print(g, g.grad_fn.name(), g.grad_fn.next_functions[0][0].name())
for bad in [(1, 2, 3), (1, 1, 1, 1, 1, 1), (-2, -2)]:
    try:
        F.pad(x, bad)
    except RuntimeError as e:
        print(e)
