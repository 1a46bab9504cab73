import torch

w = torch.tensor([1.0, -2.0], requires_grad=True)
loss = (w * w).sum()
loss.backward(retain_graph=True)
loss.backward()
print(w.grad)
