# Positions of nonzero elements: x.nonzero(), torch.where(cond) with one argument (a tuple of
# index tensors, used straight back as an index), torch.argwhere.
import torch
x = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
print(x.nonzero(), torch.nonzero(x, as_tuple=True), torch.where(x > 0), torch.argwhere(x))
rows, cols = torch.where(x != 0)
print(x[rows, cols], torch.tensor([0, 3, 0]).nonzero(), torch.tensor(2.0).nonzero().shape)
print(torch.tensor(0.).nonzero(), torch.tensor(3.).nonzero(as_tuple=True), torch.zeros(2,0).nonzero())
