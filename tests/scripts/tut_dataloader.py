# Modelled on pytorch.org "Learn the Basics: Datasets & DataLoaders" and d2l "Linear Regression
# Implementation from Scratch / Concise Implementation": synthetic data in a TensorDataset, a
# custom Dataset class, DataLoader batches with shuffling from a seeded generator, drop_last,
# and a linear model trained over a few epochs with a hand-written SGD step.
import torch
from torch import nn
from torch.utils.data import Dataset, DataLoader, TensorDataset

torch.manual_seed(0)
true_w = torch.tensor([2.0, -3.4])
true_b = 4.2
features = torch.randn(20, 2)
labels = features @ true_w + true_b + 0.01 * torch.randn(20)
labels = labels.reshape(-1, 1)

dataset = TensorDataset(features, labels)
print(len(dataset), dataset[0])
loader = DataLoader(dataset, batch_size=6, shuffle=True)
print(len(loader))
for X, y in loader:
    print(X.shape, y.shape)
    print(X[0], y[0])
    break


class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.x[idx] ** 2


for batch in DataLoader(Squares(7), batch_size=3, drop_last=True):
    print(batch)
print(len(DataLoader(Squares(5), batch_size=2)))

net = nn.Linear(2, 1)
loss = nn.MSELoss()
lr = 0.03
for epoch in range(3):
    for X, y in DataLoader(dataset, batch_size=5, shuffle=True):
        l = loss(net(X), y)
        net.zero_grad()
        l.backward()
        with torch.no_grad():
            for p in net.parameters():
                p -= lr * p.grad
    l = loss(net(features), labels)
    print(f"epoch {epoch + 1}, loss {l:f}")
print(net.weight.data, net.bias.data)
print(torch.rand(2))
