# Modelled on PyTorch's word-embeddings (n-gram language model) tutorial: F.embedding lookups of context words
import torch
import torch.nn.functional as F
W = torch.arange(12.0).reshape(4, 3).requires_grad_()
i = torch.tensor([[0, 2], [2, 3]])
y = F.embedding(i, W)
print(y, y.grad_fn.name())
(y * torch.arange(12.0).reshape(2, 2, 3)).sum().backward()
print(W.grad)
W.grad = None
F.embedding(i, W, padding_idx=2).sum().backward()
print(W.grad)
for bad in range(3):
    try:
        if bad == 0:
            F.embedding(torch.tensor([4]), W)
        elif bad == 1:
            F.embedding(torch.tensor([-1]), W)
        else:
            F.embedding(torch.tensor([1.0]), W)
    except (IndexError, RuntimeError) as e:
        print(type(e).__name__, e)
print(F.embedding(torch.tensor(1), W))
context = torch.tensor([1, 3])
emb = F.embedding(context, W).view(1, -1)
print(emb, emb.shape)
