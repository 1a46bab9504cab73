import torch

# Create a tensor that requires gradients to be calculated
x = torch.tensor(2.0, requires_grad=True)
y = 2 * x**2 + 3
y.backward()
print(x.grad)  # Output: tensor(8.)

W = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([0.5, 1.0], requires_grad=True)  # bias
X = torch.tensor([[1.0, 0.5], [0.2, 0.8]])  # input
y = torch.matmul(X, W) + b
loss = torch.sum(y**2)
loss.backward()
print("Gradient of weights W: ", W.grad)
print("Gradient of bias b:", b.grad)

x = torch.tensor(3.0, requires_grad=True)
y = x**2
y.backward()
print("Gradient of x after first backward pass: ", x.grad)
x.grad.zero_()
y = x**3
y.backward()
print("Gradient of x after zero_() and the second backward pass: ", x.grad)
