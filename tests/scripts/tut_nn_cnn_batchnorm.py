# Modelled on d2l.ai 8.5 "Batch Normalization" (concise LeNet with nn.BatchNorm2d/1d), on synthetic 28x28 images
import torch
from torch import nn

torch.manual_seed(1)

net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5), nn.BatchNorm2d(6), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5), nn.BatchNorm2d(16), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
    nn.Linear(256, 120), nn.BatchNorm1d(120), nn.Sigmoid(),
    nn.Linear(120, 84), nn.BatchNorm1d(84), nn.Sigmoid(),
    nn.Linear(84, 10))
print(net)

X = torch.rand(size=(1, 1, 28, 28), dtype=torch.float32)
net.eval()
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape:\t', X.shape)

net.train()
images = torch.rand(16, 1, 28, 28)
labels = torch.randint(0, 10, (16,))
loss_fn = nn.CrossEntropyLoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.9)
for epoch in range(3):
    trainer.zero_grad()
    loss = loss_fn(net(images), labels)
    loss.backward()
    trainer.step()
    print(f'epoch {epoch + 1}, loss {loss.item():.4f}')

bn = net[1]
print(bn.running_mean.shape, bn.num_batches_tracked, f"{bn.running_var.mean().item():.4f}")
print(net[1].weight.reshape((-1,))[:3].detach().shape)
print(sorted(net.state_dict().keys())[:6])
net.eval()
with torch.no_grad():
    print(net(images[:2]).argmax(1).shape)
