# Gradient clipping and inspection with tensor hooks, as in the PyTorch forum answer
# "How to clip gradients with register_hook" and the docs of Tensor.register_hook
import torch

w = torch.tensor([0.5, -3.0, 2.0], requires_grad=True)
x = torch.tensor([4.0, 1.0, -2.0])


def clip(grad):
    return grad.clamp(-1.0, 1.0)


handle = w.register_hook(clip)
loss = (w * x).sum() ** 2
loss.backward()
print(w.grad)
handle.remove()
w.grad = None
loss = (w * x).sum() ** 2
loss.backward()
print(w.grad)
seen = []


def record(grad):
    seen.append(grad.clone())


h = w * 2
h.register_hook(record)
(h ** 2).sum().backward()
print(seen)
print(w.grad)
