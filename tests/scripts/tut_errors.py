# The errors tutorials warn about, caught and printed
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    x += 1
except RuntimeError as e:
    print("in-place on leaf:", e)
try:
    x.add_(1)
except RuntimeError as err:
    print("add_:", err)
c = torch.tensor(2.0)
try:
    (c * 3).backward()
except RuntimeError as e:
    print("no grad:", e)
out = (x * x).sum()
try:
    out.backward(torch.ones(2))
except RuntimeError as e:
    print("shape:", e)
try:
    torch.tensor([1, 2], requires_grad=True)
except RuntimeError as e:
    print("int:", e)
try:
    x.sum().item() + torch.ones(3).item()
except RuntimeError as e:
    print("item:", e)
with torch.no_grad():
    x += 1
print(x)
y = x * 2
try:
    y.requires_grad = False
except RuntimeError as e:
    print("flag:", e)
print(y.requires_grad, x.requires_grad, y.detach().requires_grad)
