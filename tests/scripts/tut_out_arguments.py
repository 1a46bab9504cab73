# Modelled on PyTorch's 'Tensors' tutorial: arithmetic written with out= (torch.matmul(tensor, tensor.T, out=y3))
import torch
tensor = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
y1 = tensor @ tensor.T
y3 = torch.zeros_like(y1)
r = torch.matmul(tensor, tensor.T, out=y3)
print(y3, r is y3)
z3 = torch.zeros_like(tensor)
torch.mul(tensor, tensor, out=z3)
print(z3)
b = torch.ones(2, 2, requires_grad=True)
for bad in range(2):
    try:
        if bad == 0:
            torch.mul(b, b, out=torch.zeros(2, 2))
        else:
            torch.mul(tensor, tensor, out=torch.zeros(2, 2, dtype=torch.long))
    except RuntimeError as e:
        print(e)
