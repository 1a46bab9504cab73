# Modelled on the char-RNN tutorial's categoryFromOutput (output.topk(1)) when an untrained
# model's outputs tie, and on beam-search snippets that take topk of equal scores
import torch

out = torch.tensor([[-1.3863, -1.3863, -1.3863, -1.3863]], requires_grad=True)
top_n, top_i = out.topk(1)
print(top_n, top_i, top_i[0].item())
scores = torch.tensor([3.0, 1.0, 3.0, 2.0, 3.0])
print(scores.topk(2), scores.topk(2, sorted=False), scores.topk(3, largest=False))
x = torch.zeros(2, 10)
print(x.topk(4, dim=1).indices, x.topk(2, dim=0, largest=False).indices)
ties = torch.tensor([[2.0, 1.0, 2.0, 1.0, 2.0], [float("nan"), 0.0, float("nan"), 1.0, 0.0]], requires_grad=True)
values, indices = ties.topk(2, dim=1)
print(values, indices)
values.sum().backward()
print(ties.grad, top_n.sum().backward(), out.grad)
