# 60 Minute Blitz, "Tensors" (pytorch.org/tutorials/beginner/blitz/tensor_tutorial.html):
# the bridge to NumPy. A tensor made by from_numpy and the array from .numpy() share memory,
# so a change through one shows through the other; torch.tensor(array) copies.
import numpy as np
import torch

data = [[1, 2], [3, 4]]
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
print(np_array, x_np)

t = torch.ones(5)
print(f"t: {t}")
n = t.numpy()
print(f"n: {n}")
t.add_(1)
print(f"t: {t}")
print(f"n: {n}")

n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"t: {t}")
print(f"n: {n}")
n += 2
print(t)
n[1:3] = -1
print(t, n.sum(), t.sum())

copied = torch.tensor(n)
n[0] = 100
print(copied, t)
shared = torch.as_tensor(n)
n[4] = 7
print(shared)
converted = torch.as_tensor(n, dtype=torch.float32)
n[4] = 8
print(converted, converted.dtype)

a = np.arange(6).reshape(2, 3)
print(a, a.dtype, torch.from_numpy(a).dtype)
f32 = a.astype(np.float32)
print(torch.from_numpy(f32), f32.dtype == np.float32)
print(torch.tensor(np.array([1.5, 2.5])), torch.tensor([np.float64(2.5), 1.0]))
print(torch.tensor(np.float32(0.25)), torch.Tensor(np.array([1, 2])))
w = torch.tensor([0.5, -1.0], requires_grad=True)
print(w.detach().numpy(), np.array(w.detach()))
try:
    w.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    np.array(w)
except RuntimeError as e:
    print("RuntimeError:", e)
x = torch.tensor([1.0, 2.0, 3.0])
print(x + np.array([1.0, 2.0, 3.0]), x * np.float32(2.0), x - np.int64(1))
print(x @ np.array([1.0, 0.0, 1.0]))
try:
    np.array([1.0, 2.0, 3.0]) * x
except TypeError as e:
    print("TypeError:", e)
try:
    torch.from_numpy(np.arange(4)[::-1])
except ValueError as e:
    print("ValueError:", e)
try:
    torch.from_numpy([1, 2])
except TypeError as e:
    print("TypeError:", e)
