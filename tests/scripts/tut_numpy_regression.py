# Linear regression from NumPy data (the pattern of many "PyTorch basics" posts and of Deep
# Learning with PyTorch's chapter 5): inputs as np.array of float32 columns, torch.from_numpy,
# a training loop, then the result compared with NumPy's closed-form least squares.
import numpy as np
import torch
import torch.nn as nn

x_train = np.array(
    [
        [3.3],
        [4.4],
        [5.5],
        [6.71],
        [6.93],
        [4.168],
        [9.779],
        [6.182],
        [7.59],
        [2.167],
        [7.042],
        [10.791],
        [5.313],
        [7.997],
        [3.1],
    ],
    dtype=np.float32,
)
y_train = np.array(
    [
        [1.7],
        [2.76],
        [2.09],
        [3.19],
        [1.694],
        [1.573],
        [3.366],
        [2.596],
        [2.53],
        [1.221],
        [2.827],
        [3.465],
        [1.65],
        [2.904],
        [1.3],
    ],
    dtype=np.float32,
)
print(x_train.shape, y_train.dtype, x_train.mean(), y_train.std())

torch.manual_seed(0)
model = nn.Linear(1, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
inputs = torch.from_numpy(x_train)
targets = torch.from_numpy(y_train)
for epoch in range(60):
    outputs = model(inputs)
    loss = criterion(outputs, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if (epoch + 1) % 20 == 0:
        print("Epoch [{}/{}], Loss: {:.4f}".format(epoch + 1, 60, loss.item()))

predicted = model(inputs).detach().numpy()
print(predicted[:3].round(3), predicted.dtype)
errors = np.abs(predicted - y_train)
print(round(float(np.mean(errors)), 4), round(float(np.max(errors)), 4), np.argmax(errors))
X = np.hstack([x_train, np.ones_like(x_train)])
coef = np.linalg.norm(X, axis=0)
print(coef, np.linalg.norm(predicted - y_train))
slope = np.sum((x_train - x_train.mean()) * (y_train - y_train.mean())) / np.sum(
    (x_train - x_train.mean()) ** 2
)
print("slope", slope, "model", round(model.weight.item(), 4))
print(np.allclose(predicted, y_train, atol=1.0), np.isclose(slope, 0.25, atol=0.1))
x_np = np.linspace(0, 10, 5).reshape(-1, 1).astype(np.float32)
print(model(torch.from_numpy(x_np)).detach().numpy().ravel().round(4))
