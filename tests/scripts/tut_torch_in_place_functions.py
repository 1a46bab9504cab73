# torch's in-place functions spelled as functions (torch.sin_(x), torch.relu_(x)), as some
# activation tutorials write them, and NotImplementedError caught as the RuntimeError it is.
import torch

x = torch.tensor([0.5, 2.0, -1.0])
torch.sin_(x)
print(x, x._version)
y = torch.relu_(torch.tensor([-1.0, 1.0]))
print(y)
w = torch.tensor([0.25, 4.0], requires_grad=True)
z = w * 2
torch.exp_(z)
z.sum().backward()
print(z, w.grad)
try:
    torch.sin_(3.0)
except TypeError as e:
    print("TypeError:", e)
try:
    raise NotImplementedError("not yet")
except RuntimeError as e:
    print("caught", e)
