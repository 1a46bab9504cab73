# Modelled on d2l.ai 5.2 Implementation of Multilayer Perceptrons (concise)
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(1)
X_all = torch.randn(480, 1, 5, 5)
W = torch.randn(25, 3)
y_all = torch.tanh(X_all.reshape(480, -1) @ W).pow(2).argmax(1)
train_iter = data.DataLoader(data.TensorDataset(X_all[:400], y_all[:400]), batch_size=32, shuffle=True)
test_iter = data.DataLoader(data.TensorDataset(X_all[400:], y_all[400:]), batch_size=32)

net = nn.Sequential(nn.Flatten(),
                    nn.Linear(25, 64),
                    nn.ReLU(),
                    nn.Linear(64, 3))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)

batch_size, lr, num_epochs = 32, 0.1, 6
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=lr)

for epoch in range(num_epochs):
    net.train()
    total, n, correct = 0.0, 0, 0
    for X, y in train_iter:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.mean().backward()
        trainer.step()
        total += l.sum().item()
        n += y.numel()
    net.eval()
    with torch.no_grad():
        for X, y in test_iter:
            correct += (net(X).argmax(dim=1) == y).sum().item()
    print(f"epoch {epoch}: loss {total / n:.5f}, test acc {correct / 80:.4f}")
print(net[1].weight.norm(), net[3].bias)
