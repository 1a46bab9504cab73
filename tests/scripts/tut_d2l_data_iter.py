# d2l's linear regression from scratch: synthetic data, a generator of minibatches
# (`yield`), SGD by hand under torch.no_grad(), and the epoch losses printed with f-strings.
import torch


def synthetic_data(w, b, num_examples):
    X = torch.arange(num_examples * len(w)).float().reshape(num_examples, len(w)) / num_examples - 1
    y = torch.matmul(X, w) + b
    y += 0.01 * torch.cos(torch.arange(num_examples).float())
    return X, y.reshape((-1, 1))


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    for i in range(0, num_examples, batch_size):
        yield features[i : i + batch_size], labels[i : i + batch_size]


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 100)
print("features:", features[0], "\nlabel:", labels[0])
X, y = next(iter(data_iter(10, features, labels)))
print(X.shape, y.shape, type(data_iter(10, features, labels)))

w = torch.zeros(2, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.5
for epoch in range(3):
    for X, y in data_iter(25, features, labels):
        loss = ((X @ w + b - y) ** 2 / 2).sum()
        loss.backward()
        with torch.no_grad():
            for param in [w, b]:
                param -= lr * param.grad / 25
                param.grad.zero_()
    with torch.no_grad():
        train_l = (features @ w + b - labels) ** 2 / 2
        print(f"epoch {epoch + 1}, loss {float(train_l.mean()):.4f}")
print(f"w error {(true_w - w.reshape(true_w.shape)).abs().max().item():.2f}, b error {abs(true_b - b.item()):.2f}")
