# backward(inputs=...) with a non-leaf input: it gets a .grad, and only the nodes on a path
# to an input run, so a retained tensor off that path (b) keeps no gradient
import torch
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
w = x * 2
u = w * 3
u.retain_grad()
b = x.exp()
b.retain_grad()
v = (u ** 2).sum() + b.sum()
v.backward(inputs=[w], retain_graph=True)
print(w.grad, x.grad, u.grad, b.grad, w.is_leaf)
v.backward(inputs=[w, x])
print(w.grad, x.grad, u.grad, b.grad)
h = x.detach().requires_grad_() * 3
(h * h).sum().backward(inputs=[h])
print(h.grad, h.is_leaf)
