# torch's other draws as tutorials meet them: dropout masks by hand with bernoulli, sampling
# tokens with multinomial (makemore's sampling loop), exponential_ and random_ fills,
# randint_like; all from torch's generator after manual_seed, so the numbers are torch's.
import torch

torch.manual_seed(0)
p = torch.tensor([0.1, 0.5, 0.9])
print(torch.bernoulli(p), p.bernoulli())
print(torch.empty(3).bernoulli_(0.3), torch.zeros(2, 2).bernoulli_(p[:2]))
probs = torch.tensor([0.2, 0.3, 0.5])
print(torch.multinomial(probs, 2), torch.multinomial(probs, 4, replacement=True))
print(probs.multinomial(1), torch.multinomial(torch.tensor([[1.0, 2.0], [3.0, 1.0]]), 2))
print(torch.empty(3).exponential_(), torch.empty(2, dtype=torch.float64).exponential_(2.0))
print(torch.empty(3, dtype=torch.int64).random_(0, 10), torch.empty(2).random_(), torch.empty(3).random_(5))
print(torch.randint_like(p, 5), torch.randint_like(p, 2, 4))
g = torch.Generator().manual_seed(3)
print(torch.multinomial(probs, 2, generator=g), torch.empty(2).bernoulli_(0.5, generator=g))

# makemore's sampling loop, shrunk
P = torch.tensor([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25], [0.2, 0.2, 0.6]])
g = torch.Generator().manual_seed(2147483647)
for _ in range(3):
    out, ix = [], 0
    while True:
        ix = torch.multinomial(P[ix], num_samples=1, replacement=True, generator=g).item()
        out.append(ix)
        if ix == 0 or len(out) > 6:
            break
    print(out)
try:
    torch.multinomial(probs, 5)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.empty(2).exponential_(-1.0)
except RuntimeError as e:
    print("RuntimeError:", e)
