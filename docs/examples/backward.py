import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = 2 * x
z = y ** 3
out = z.mean()
print("out", out)
out.backward(retain_graph=True)
print("x.grad", x.grad)
x.grad.zero_()
z.backward(torch.tensor([[0.0, 1.0], [0.0, 1.0]]))
print(f"second column: {x.grad[:, 1].tolist()}")
out.backward()
