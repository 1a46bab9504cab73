# Modelled on the NLP tutorials that average a loss over real tokens only (masked_select with a padding mask)
import torch
x = torch.tensor([[1.0, -2, 3], [-4, 5, -6]], requires_grad=True)
m = x > 0
y = x.masked_select(m)
print(y, y.grad_fn.name())
(y * torch.arange(3.0)).sum().backward()
print(x.grad)
print(torch.masked_select(x, torch.tensor([True, False, True])))
for bad in range(2):
    try:
        if bad == 0:
            x.masked_select(torch.tensor([1, 0, 1]))
        else:
            x.masked_select(torch.tensor([True, False]))
    except RuntimeError as e:
        print(type(e).__name__, e)
v = torch.tensor([1.0, 2.0], requires_grad=True)
z = v.masked_select(torch.tensor([[True, False], [True, True]]))
print(z)
z.sum().backward()
print(v.grad)
losses = torch.tensor([0.5, 1.5, 2.5, 3.5], requires_grad=True)
pad_mask = torch.tensor([True, True, False, True])
loss = losses.masked_select(pad_mask).mean()
loss.backward()
print(loss, losses.grad)
