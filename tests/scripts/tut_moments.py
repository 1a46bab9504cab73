# Modelled on d2l's batch-norm chapter and the torch.var_mean / std_mean docs: moments of a batch in one call
import torch
x = torch.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], requires_grad=True)
v, m = torch.var_mean(x, dim=1)
print(v, m)
s, m0 = torch.std_mean(x, 0, keepdim=True)
print(s, m0, torch.std_mean(torch.tensor([1.0, 2.0, 3.0, 4.0])))
print(torch.var_mean(x, unbiased=False), torch.var_mean(x, 1, correction=0))
(v.sum() + 2 * m.sum() + s.sum()).backward()
print(x.grad)
