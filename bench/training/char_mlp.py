# a character-level MLP as makemore writes it: 300 steps of minibatch SGD on made-up names
import random
import torch
import torch.nn.functional as F

random.seed(42)
syll = ["an", "el", "ia", "mo", "ra", "li", "ko", "su", "te", "vy", "on", "da"]
words = ["".join(random.choice(syll) for _ in range(random.randint(2, 4))) for _ in range(2000)]
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
block = 3
X, Y = [], []
for w in words:
    context = [0] * block
    for ch in w + ".":
        ix = stoi[ch]
        X.append(context)
        Y.append(ix)
        context = context[1:] + [ix]
X, Y = torch.tensor(X), torch.tensor(Y)
g = torch.Generator().manual_seed(2147483647)
C = torch.randn((len(stoi), 10), generator=g)
W1 = torch.randn((30, 200), generator=g) * 0.2
b1 = torch.randn(200, generator=g) * 0.01
W2 = torch.randn((200, len(stoi)), generator=g) * 0.01
b2 = torch.zeros(len(stoi))
parameters = [C, W1, b1, W2, b2]
for p in parameters:
    p.requires_grad = True
for i in range(300):
    ix = torch.randint(0, X.shape[0], (32,), generator=g)
    emb = C[X[ix]]
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Y[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 200 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    if i % 100 == 0:
        print(i, f"{loss.item():.4f}")
with torch.no_grad():
    emb = C[X]
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
    print(f"{F.cross_entropy(h @ W2 + b2, Y).item():.4f}")
