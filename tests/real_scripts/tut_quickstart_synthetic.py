# Source: pytorch/tutorials, beginner_source/basics/quickstart_tutorial.py
#   (commit 07a339ece661a2b304b8834780470f522eed1e02; this version's stack ends with nn.ReLU()),
#   "Learn the Basics: Quickstart" (PyTorch tutorials team).
# Changes: FashionMNIST (torchvision download) replaced by synthetic TensorDatasets of the same
#   shapes (images 1x28x28 in [0, 1), labels 0..9) drawn from a seeded torch.Generator, 640
#   training and 128 test samples; torchvision/matplotlib imports dropped; added
#   torch.manual_seed(0) (model init unseeded); epochs 5 -> 2; torch.save/torch.load of
#   model.pth replaced by keeping the state_dict in memory (the "Saved ..." print dropped);
#   prose comments shortened.
"""
Quickstart
===================
"""

import torch
from torch import nn
from torch.utils.data import DataLoader
from torch.utils.data import TensorDataset

torch.manual_seed(0)
g = torch.Generator().manual_seed(0)

# Download training data from open datasets.
training_data = TensorDataset(torch.rand(640, 1, 28, 28, generator=g),
                              torch.randint(0, 10, (640,), generator=g))

# Download test data from open datasets.
test_data = TensorDataset(torch.rand(128, 1, 28, 28, generator=g),
                          torch.randint(0, 10, (128,), generator=g))

batch_size = 64

# Create data loaders.
train_dataloader = DataLoader(training_data, batch_size=batch_size)
test_dataloader = DataLoader(test_data, batch_size=batch_size)

for X, y in test_dataloader:
    print("Shape of X [N, C, H, W]: ", X.shape)
    print("Shape of y: ", y.shape, y.dtype)
    break

# Get cpu or gpu device for training.
device = "cuda" if torch.cuda.is_available() else "cpu"
print("Using {} device".format(device))

# Define model
class NeuralNetwork(nn.Module):
    def __init__(self):
        super(NeuralNetwork, self).__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28*28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
            nn.ReLU()
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits

model = NeuralNetwork().to(device)
print(model)

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)

        # Compute prediction error
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if batch % 100 == 0:
            loss, current = loss.item(), batch * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


epochs = 2
for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train(train_dataloader, model, loss_fn, optimizer)
    test(test_dataloader, model, loss_fn)
print("Done!")

# Saving Models
state_dict = model.state_dict()

# Loading Models
model = NeuralNetwork()
model.load_state_dict(state_dict)

classes = [
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
]

model.eval()
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    pred = model(x)
    predicted, actual = classes[pred[0].argmax(0)], classes[y]
    print(f'Predicted: "{predicted}", Actual: "{actual}"')
