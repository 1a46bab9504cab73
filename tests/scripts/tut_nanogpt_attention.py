# nanoGPT's "mathematical trick in self-attention": a causal mask from torch.tril, masked_fill
# with -inf, softmax, and wei @ x; then a single head with q @ k.transpose(-2, -1).
import torch
import torch.nn.functional as F

B, T, C = 2, 4, 3
x = (torch.arange(B * T * C, dtype=torch.float32).reshape(B, T, C) % 5 - 2) / 2
x.requires_grad_(True)
tril = torch.tril(torch.ones(T, T))
wei = torch.zeros((T, T))
wei = wei.masked_fill(tril == 0, float("-inf"))
wei = F.softmax(wei, dim=-1)
print(tril)
print(wei)
xbow = wei @ x
print(xbow[0])
print(xbow.grad_fn.name(), xbow.grad_fn.next_functions[0][0].name())

Wk = (torch.arange(C * 2, dtype=torch.float32).reshape(C, 2) % 3 - 1) / 4
Wq = (torch.arange(C * 2, dtype=torch.float32).reshape(C, 2) % 4 - 1.5) / 4
k, q = x @ Wk, x @ Wq
att = q @ k.transpose(-2, -1) * 2 ** -0.5
att = att.masked_fill(tril[:T, :T] == 0, float("-inf"))
att = F.softmax(att, dim=-1)
out = att @ x
out.sum().backward()
print(att[1])
print(x.grad[0])
m = torch.ones(3, 3)
m.triu_(1)
m.masked_fill_(m == 0, -1.0)
print(m, torch.cumprod(torch.tensor([1.0, 2.0, 3.0]), 0), torch.flip(torch.arange(4), [0]))
print(torch.isnan(att).any(), torch.isinf(torch.log(att)).sum())
