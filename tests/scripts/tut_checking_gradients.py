# Checking a gradient by hand, as tutorials do after backward(): torch.allclose against a
# formula, torch.equal, type() of what autograd.grad returns, Python's max() over tensors,
# torch.Size, and a float32 parameter used in float64 (ToCopyBackward0).
import torch

x = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
y = torch.sigmoid(x)
y.sum().backward()
manual = torch.sigmoid(x) * (1 - torch.sigmoid(x))
print(torch.allclose(x.grad, manual))
print(torch.allclose(x.grad, manual + 1e-3), torch.allclose(x.grad, manual + 1e-3, atol=1e-2))
print(torch.isclose(x.grad, manual.detach() + torch.tensor([0.0, 1e-9, 1.0])))
print(torch.equal(x.grad, manual.detach()), torch.equal(x.grad, x.grad.clone()))
print((x.grad - manual).abs().max())

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
g = torch.autograd.grad((w.exp()).sum(), [w])
print(type(g), len(g), type(g[0]), type(w.shape), type(w.sum().item()))
print(max(w.detach()), min(w.tolist()), max([torch.tensor(2.0), torch.tensor(-1.0)]))
print(w.shape == torch.Size([3]), torch.Size([2, 3]), w.shape == (3,))

# a float32 parameter computed on in double precision: ToCopyBackward0, grad back in float32
p = torch.tensor([0.5, -1.5], requires_grad=True)
q = p.double() * torch.tensor([3.0, 4.0], dtype=torch.float64)
print(q, q.grad_fn.next_functions[0][0].name())
q.sum().backward()
print(p.grad, p.grad.dtype)
r = torch.tensor([0.25, 0.75], dtype=torch.float64, requires_grad=True)
s = r.float()
print(s, s.dtype)
(s * s).sum().backward()
print(r.grad)

with torch.inference_mode():
    frozen = w * 2
print(frozen.requires_grad, torch.is_grad_enabled())
try:
    torch.allclose(p, r)
except RuntimeError as e:
    print("RuntimeError:", e)
