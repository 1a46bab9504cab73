# Modelled on pytorch.org tutorial style binary classification (logistic regression with BCELoss / Sigmoid)
import torch
import torch.nn as nn

torch.manual_seed(0)
n = 200
X = torch.cat([torch.randn(n // 2, 2) + 1.5, torch.randn(n // 2, 2) - 1.5])
y = torch.cat([torch.ones(n // 2, 1), torch.zeros(n // 2, 1)])
perm = torch.randperm(n)
X, y = X[perm], y[perm]


class LogisticRegression(nn.Module):
    def __init__(self, n_inputs):
        super().__init__()
        self.linear = nn.Linear(n_inputs, 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        return self.sigmoid(self.linear(x))


model = LogisticRegression(2)
criterion = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
print(model)

for epoch in range(100):
    y_pred = model(X)
    loss = criterion(y_pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if (epoch + 1) % 20 == 0:
        print(f'epoch: {epoch+1}, loss = {loss.item():.4f}')

with torch.no_grad():
    y_predicted = model(X)
    y_predicted_cls = y_predicted.round()
    acc = y_predicted_cls.eq(y).sum() / float(y.shape[0])
    print(f'accuracy: {acc.item():.4f}')
print(model.linear.weight, model.linear.bias)
print(model.state_dict())
crit2 = nn.BCEWithLogitsLoss(reduction='sum')
print(crit2(model.linear(X[:5]), y[:5]))
