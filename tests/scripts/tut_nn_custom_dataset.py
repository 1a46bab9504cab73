# Modelled on pytorch.org Learn the Basics: Datasets & DataLoaders (custom Dataset class, synthetic)
import torch
from torch import nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)


class CustomSignalDataset(Dataset):
    def __init__(self, n, transform=None, target_transform=None):
        self.signals = torch.randn(n, 10)
        self.labels = (self.signals.sum(1) > 0).long()
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        signal = self.signals[idx]
        label = self.labels[idx]
        if self.transform:
            signal = self.transform(signal)
        if self.target_transform:
            label = self.target_transform(label)
        return signal, label


training_data = CustomSignalDataset(120, transform=lambda s: s * 2.0,
                                    target_transform=lambda y: torch.zeros(2).scatter_(0, y.unsqueeze(0), value=1))
test_data = CustomSignalDataset(40)
print(len(training_data), training_data[0])

train_dataloader = DataLoader(training_data, batch_size=16, shuffle=True)
test_dataloader = DataLoader(test_data, batch_size=16, shuffle=False)

train_features, train_labels = next(iter(train_dataloader))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")
print(f"Label: {train_labels[0]}")

model = nn.Sequential(nn.Linear(10, 16), nn.SiLU(), nn.Linear(16, 2))
loss_fn = nn.BCEWithLogitsLoss()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(4):
    total = 0.0
    for X, y in train_dataloader:
        opt.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        opt.step()
        total += loss.item() * len(X)
    print(f"epoch {epoch}: {total / len(training_data):.6f}")

with torch.no_grad():
    correct = 0
    for X, y in test_dataloader:
        correct += (model(X * 2.0).argmax(1) == y).sum().item()
print(f"test acc: {correct}/{len(test_data)}")
print(len(train_dataloader), len(test_dataloader))
for i, (X, y) in enumerate(DataLoader(test_data, batch_size=16, drop_last=True)):
    print(i, X.shape, y.tolist())
