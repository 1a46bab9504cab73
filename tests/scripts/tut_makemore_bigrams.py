# makemore part 1 as the video writes it: an alphabet from set/sorted, stoi/itos by dict
# comprehensions, bigram pairs, one-hot inputs, and gradient steps on -log of the picked probs
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella"]
chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
print(len(stoi), itos[3])

xs, ys = [], []
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs = torch.tensor(xs)
ys = torch.tensor(ys)
num = xs.nelement()
print('number of examples:', num)

W = (torch.linspace(-1, 1, 100).reshape(10, 10) * 0.3).requires_grad_()
for k in range(5):
    xenc = F.one_hot(xs, num_classes=10).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W**2).mean()
    W.grad = None
    loss.backward()
    W.data += -50 * W.grad
    print(k, f"{loss.item():.4f}")
print(probs[0, :4], ys[:6])
