# Gradient accumulation across backward calls, and retain_graph
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**3
y.backward(retain_graph=True)
print(x.grad)
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:40])
s = x + 1
s.backward()
s.backward()
print(x.grad)
g = x.grad
(x * 2).backward()
print(g, x.grad)
x.grad = None
(x * 5).backward()
print(x.grad, g)
vals = []
for i in range(3):
    z = (x * i) ** 2
    z.backward()
    vals.append(x.grad.item())
print(vals)
