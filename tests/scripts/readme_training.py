# The README's training example: an nn.Module with a custom autograd.Function, a shuffled
# DataLoader, Adam and a learning-rate schedule (modelled on pytorch.org's "Learning PyTorch
# with Examples" and "Optimizing Model Parameters").
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx, g):
        x, s = ctx.saved_tensors
        return g * (s + x * s * (1 - s))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(1, 16)
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        return self.out(Swish.apply(self.hidden(x)))


torch.manual_seed(0)
x = torch.linspace(-2, 2, 64).unsqueeze(1)
y = x ** 2 + 0.1 * torch.randn(64, 1)
loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
model = Net()
print(model)
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)
loss_fn = nn.MSELoss()
for epoch in range(60):
    for xb, yb in loader:
        loss = loss_fn(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
    if epoch % 20 == 19:
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}, lr {scheduler.get_last_lr()[0]}")
print(loss.grad_fn.name(), model.out.bias)
