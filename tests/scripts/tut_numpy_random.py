# NumPy's own generator beside torch's: np.random.seed / rand / randn / normal / uniform /
# randint / shuffle / permutation / choice (the legacy functions tutorials call), and a
# default_rng Generator; the numbers are NumPy's, the shuffled index feeds torch tensors.
import numpy as np
import torch

np.random.seed(42)
print(np.random.rand(3))
print(np.random.randn(2, 2))
print(np.random.normal(0, 0.1, size=(2, 3)))
print(np.random.uniform(-1, 1, 4))
print(np.random.randint(0, 10, size=5))
print(np.random.random(2), np.random.random_sample((1, 2)))
idx = np.arange(10)
np.random.shuffle(idx)
print(idx)
print(np.random.permutation(6), np.random.permutation([10, 20, 30]))
print(np.random.choice(5, 3), np.random.choice([1.5, 2.5, 3.5], size=2, replace=False))
print(np.random.choice(4, 6, p=[0.1, 0.2, 0.3, 0.4]))

rng = np.random.default_rng(0)
print(rng.random(3), rng.normal(size=2), rng.integers(0, 5, size=4))
print(rng.standard_normal((2, 2)), rng.permutation(5), rng.uniform(0, 1, 2))

x = torch.arange(10.0)
order = np.random.permutation(10)
print(x[order], x[torch.from_numpy(order)])
batch = torch.from_numpy(np.random.randn(3, 2).astype(np.float32))
print(batch, batch.dtype)
np.random.seed(42)
print(np.random.rand(3))
names = ["a", "b", "c", "d", 5]
np.random.shuffle(names)  # a Python list is shuffled in place, as NumPy does
print(names, np.float32(np.arange(3)))
