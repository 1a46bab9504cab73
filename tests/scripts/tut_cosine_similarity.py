# Modelled on embedding-similarity tutorials (F.cosine_similarity between word vectors) and a cosine loss
import torch
import torch.nn.functional as F
a = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
b = torch.tensor([[2.0, 0.0, 1.0], [1.0, 1.0, 1.0]], requires_grad=True)
cos = F.cosine_similarity(a, b, dim=1)
print(cos, cos.grad_fn.name(), [f[0].name() for f in cos.grad_fn.next_functions])
loss = (1 - cos).mean()
loss.backward()
print(loss, a.grad, b.grad)
print(F.cosine_similarity(torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]), dim=0))
print(F.cosine_similarity(a, b[0], dim=-1), torch.cosine_similarity(a, b, 0))
z = torch.zeros(3, requires_grad=True)
c = F.cosine_similarity(z, torch.tensor([1.0, 2.0, 3.0]), dim=0)
c.backward()
print(c, z.grad)
