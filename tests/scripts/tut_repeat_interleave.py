# Modelled on d2l's masked_softmax (valid_lens repeated per row with torch.repeat_interleave) and the repeat_interleave docs
import torch
x1 = torch.tensor([1.0, 2.0], requires_grad=True)
x2 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
for y in (x1.repeat_interleave(2), x2.repeat_interleave(2), x2.repeat_interleave(2, dim=0), x2.repeat_interleave(3, dim=1), x2.repeat_interleave(2, -1), torch.repeat_interleave(x2, 1, dim=0)):
    print(y, y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
(x2.repeat_interleave(3, dim=1) * torch.arange(12.0).reshape(2, 6)).sum().backward()
print(x2.grad)
valid_lens = torch.tensor([2, 3])
print(torch.repeat_interleave(valid_lens, 3), torch.tensor([1, 2]).repeat_interleave(2))
print(torch.tensor(3.0).repeat_interleave(2), x2.t().repeat_interleave(2, dim=0))
