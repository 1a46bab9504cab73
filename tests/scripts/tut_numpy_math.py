# NumPy math a tutorial checks torch against: array creation (eye, zeros, ones, full, arange,
# linspace), elementwise functions, reductions along axes, products, stacking and indexing,
# and the comparison of torch's autograd gradient with a hand-written NumPy one.
import numpy as np
import torch

a = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
print(a.shape, a.ndim, a.size, a.dtype, a.T.shape)
print(np.eye(3), np.zeros((2, 2)), np.ones(3, dtype=np.int64), np.full((2, 2), 7.5))
print(np.arange(0, 1, 0.25), np.arange(5.0), np.linspace(0, 1, 3), np.linspace(0, 1, 4, endpoint=False))
print(np.exp(a).round(3), np.log(np.abs(a)), np.sqrt(np.abs(a)), np.tanh(a))
print(np.sum(a), np.sum(a, axis=0), a.sum(axis=1, keepdims=True), a.mean(), a.mean(axis=0))
print(a.max(), a.min(axis=1), np.argmax(a, axis=1), a.argmin(), a.std(), a.var(ddof=1))
print(np.dot(a, a.T), a @ a.T, np.matmul(a.T, a).shape, np.outer([1, 2], [3, 4]))
print(np.concatenate([a, a]), np.stack([a, a]).shape, np.vstack([a, a]).shape, np.hstack([a, a]).shape)
print(np.where(a > 0, a, 0), np.clip(a, -1, 1), np.maximum(a, 0), np.minimum(a, 0))
print(a[0], a[:, 1], a[a > 0], a[1, ::-1], a[np.array([1, 0])], a[:, None].shape)
print(np.cumsum([1, 2, 3]), np.prod([1, 2, 3, 4]), np.sort([3, 1, 2]), np.argsort([3, 1, 2]))
print(np.unique([3, 1, 3, 2, 1]), np.unique([3, 1, 3], return_counts=True))
print(a.reshape(3, 2), a.reshape(-1), a.flatten(), a.ravel().tolist(), a.copy() is a)
print(np.square(3.0), np.power(2, 10), np.abs(-3), np.float64(2.5) * 2, float(np.sum([0.5, 0.25])))
print(np.isclose(0.1 + 0.2, 0.3), np.allclose([1.0, 2.0], [1.0, 2.0 + 1e-9]), np.array_equal(a, a))
print(np.pi, np.e, np.inf, -np.inf, np.nan, np.newaxis)
b = np.zeros((2, 3))
b[0, 1] = 5
b[1] = [1, 2, 3]
b[:, 2] += 10
b *= 2
print(b, len(b), list(b[0]), [float(v) for v in b[1]])
for row in b:
    print(row, row.sum())
print(np.mean([1.0, 2.0, 4.0]), np.sum(np.multiply((1.0, 2.0), (3.0, 4.0))))

x_np = np.array([0.5, -1.5, 2.0])
x = torch.tensor(x_np, requires_grad=True)
y = (x**3 - 2 * x).sum()
y.backward()
manual = 3 * x_np**2 - 2
print(x.grad, manual, np.allclose(x.grad.numpy(), manual))
print(type(x.grad.numpy()), x.grad.numpy().dtype, x.grad.numpy().tolist())
if (x.grad.numpy() > 0).any():
    print("some positive")
if not (x.grad.numpy() > 100).all():
    print("none over 100")
