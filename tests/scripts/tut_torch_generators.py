# torch.Generator objects as reproducibility guides use them (pytorch.org/docs/stable/notes/
# randomness.html; the DataLoader's generator= for seeded shuffling): a generator of one's own
# leaves the default one alone, get_rng_state/set_rng_state replay draws, and
# torch.nn.init and DataLoader take generator=.
import torch
from torch.utils.data import DataLoader, TensorDataset

g = torch.Generator().manual_seed(42)
print(g.initial_seed(), torch.Generator().initial_seed())
print(torch.rand(3, generator=g))
print(torch.randn(2, 2, generator=g))
print(torch.randint(0, 10, (5,), generator=g), torch.randperm(6, generator=g))
print(torch.normal(0.0, 1.0, size=(3,), generator=g))
print(torch.normal(torch.zeros(2), torch.ones(2), generator=g))

torch.manual_seed(0)
a = torch.rand(2)
torch.manual_seed(0)
other = torch.Generator()
other.manual_seed(7)
b = torch.rand(5, generator=other)
print(a, torch.rand(2), torch.initial_seed())

state = torch.get_rng_state()
print(state.shape, state.dtype)
first = torch.randn(3)
torch.set_rng_state(state)
print(torch.equal(first, torch.randn(3)))
gs = g.get_state()
x = torch.rand(2, generator=g)
g.set_state(gs)
print(torch.equal(x, torch.rand(2, generator=g)))

w = torch.empty(3, 4)
torch.nn.init.xavier_uniform_(w, generator=torch.Generator().manual_seed(1))
print(w)
torch.nn.init.normal_(w, std=0.1, generator=torch.Generator().manual_seed(2))
print(w)
w.uniform_(-1, 1, generator=torch.Generator().manual_seed(3))
print(w)

data = TensorDataset(torch.arange(8.0).reshape(8, 1), torch.arange(8))
loader = DataLoader(data, batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(5))
for xb, yb in loader:
    print(xb.flatten(), yb)
for xb, yb in loader:
    print(yb)
print(torch.rand(1))
print(torch.default_generator.initial_seed())
try:
    torch.rand(2, generator=3)
except TypeError as e:
    print("TypeError")
