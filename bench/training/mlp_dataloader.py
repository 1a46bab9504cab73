# a 20-epoch MLP on 3,000 points with Adam and a DataLoader
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
torch.manual_seed(0)
X = torch.randn(3000, 10)
y = (X[:, 0] * X[:, 1] > 0).long()
loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)
model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(20):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item()
    if epoch % 5 == 4:
        print(epoch, f"{total / len(loader):.4f}")
with torch.no_grad():
    print(f"{(model(X).argmax(1) == y).float().mean().item():.3f}")
