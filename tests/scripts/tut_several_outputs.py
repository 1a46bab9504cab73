# torch.autograd.backward and torch.autograd.grad with sequences of outputs (their docs:
# "tensors (Sequence[Tensor] or Tensor)", "grad_tensors", allow_unused), as multi-task
# training code sums several losses in one call
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
v = torch.tensor([0.5, -1.0], requires_grad=True)
unused = torch.tensor(3.0, requires_grad=True)
task1 = (w * v).sum()
task2 = (w**2).sum()
torch.autograd.backward([task1, task2])
print(w.grad, v.grad)
w.grad = None
v.grad = None
y = w * 3
z = v.exp()
torch.autograd.backward([y, z], grad_tensors=[torch.tensor([1.0, 0.0]), torch.ones(2)])
print(w.grad, v.grad)
a = (w * v).sum()
b = (w + v).prod()
ga, gb = torch.autograd.grad([a, b], [w, v])
print(ga, gb)
g = torch.autograd.grad((w**2).sum(), [w, unused], allow_unused=True)
print(g)
try:
    torch.autograd.grad((w**2).sum(), [w, unused])
except RuntimeError as e:
    print("RuntimeError:", e)
out = w * v
(gw,) = torch.autograd.grad(out, w, grad_outputs=torch.tensor([1.0, 2.0]), retain_graph=True)
print(gw)
(gw2,) = torch.autograd.grad([out, out.sum()], w, grad_outputs=[torch.ones(2), None])
print(gw2)
loss = (w * v).sum()
loss.backward(inputs=[v])
print(w.grad, v.grad)
try:
    torch.autograd.backward([y.sum(), z.sum()], [None])
except RuntimeError as e:
    print("RuntimeError:", e)
