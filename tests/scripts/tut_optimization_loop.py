# Modelled on pytorch.org "Learn the Basics: Optimizing Model Parameters" (optimization_tutorial):
# a NeuralNetwork module, CrossEntropyLoss, torch.optim.SGD, and the tutorial's train_loop and
# test_loop (model.train() / model.eval(), torch.no_grad(), accuracy and average loss), over a
# synthetic three-class dataset in DataLoaders instead of FashionMNIST (no downloads); then
# "Learning PyTorch with Examples: PyTorch: optim" with Adam and a StepLR schedule.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
centers = torch.tensor([[2.0, 0.0], [-1.0, 1.5], [-1.0, -1.5]])
labels = torch.randint(0, 3, (240,))
points = centers[labels] + 0.6 * torch.randn(240, 2)
train_data = TensorDataset(points[:200], labels[:200])
test_data = TensorDataset(points[200:], labels[200:])


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(2, 16),
            nn.ReLU(),
            nn.Linear(16, 16),
            nn.ReLU(),
            nn.Linear(16, 3),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()
learning_rate = 1e-1
batch_size = 32
epochs = 4
train_dataloader = DataLoader(train_data, batch_size=batch_size, shuffle=True)
test_dataloader = DataLoader(test_data, batch_size=batch_size)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
print(optimizer)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 3 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")

x = torch.linspace(-1, 1, 200)
y = 0.5 + 2 * x - 0.75 * x * x
xx = torch.stack([x, x * x], 1)
line = nn.Linear(2, 1)
optimizer = torch.optim.Adam(line.parameters(), lr=0.05)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=100, gamma=0.5)
for t in range(300):
    loss = ((line(xx).squeeze(1) - y) ** 2).mean()
    if t % 100 == 99:
        print(t, f"{loss.item():.6f}", scheduler.get_last_lr())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
print(f"Result: y = {line.bias.item():.3f} + {line.weight[0, 0].item():.3f} x + {line.weight[0, 1].item():.3f} x^2")
print(optimizer.state_dict()["param_groups"][0]["lr"], len(optimizer.state_dict()["state"]))
