import torch as T
import torch.autograd
import numpy as np

x = T.tensor([[0.6955]], requires_grad=True)  # x is a leaf created by user, thus grad_fn is none
print("x", x)
y = 2 * x
print("y", y)
z = y**3
print("z", z)
z.backward()
print("z gradient:", z.grad)
print("y gradient:", y.grad)
print("x gradient:", x.grad, "Requires gradient?", x.grad.requires_grad)

x = T.tensor([[0.7207]], requires_grad=True)
print("x", x)
y = 2 * x
z = y**3
z.backward(retain_graph=True)
print("Keeping the default value of grad_tensors gives")
print("z gradient:", z.grad)
print("y gradient:", y.grad)
print("x gradient:", x.grad)
x.grad.data.zero_()
z.backward(T.Tensor([[1]]), retain_graph=True)
print("Set grad_tensors to 1 gives")
print("x gradient:", x.grad)
x.grad.data.zero_()
z.backward(T.Tensor([[0.1]]), retain_graph=True)
print("Set grad_tensors to 0.1 gives")
print("x gradient:", x.grad)
x.grad.data.zero_()
z.backward(T.FloatTensor([[0.5]]), retain_graph=True)
print("Modifying the default value of grad_variables to 0.5 gives")
print("z gradient", z.grad)
print("x gradient", x.grad)

x = T.tensor([[2.5212, 1.2730], [-0.0366, -0.0750]], requires_grad=True)
print("x", x)
y = 2 * x
z = y**3
print("z shape:", z.size())
z.backward(T.FloatTensor([[1, 1], [1, 1]]), retain_graph=True)
print("x gradient for its all elements:\n", x.grad)
print()
x.grad.data.zero_()
z.backward(T.FloatTensor([[0, 1], [0, 1]]), retain_graph=True)
print("x gradient for the second column:\n", x.grad)
print()
x.grad.data.zero_()
z.backward(T.FloatTensor([[1, 1], [0, 0]]), retain_graph=True)
print("x gradient for the first row:\n", x.grad)

x = T.tensor([[1.8528, 0.2083], [-1.5296, 0.3136]], requires_grad=True)
print("x", x)
y = 2 * x
z = y**3
out = z.mean()
print("out", out)
out.backward(retain_graph=True)
print("x gradient:\n", x.grad)
x.grad.data.zero_()
try:
    out.backward(T.FloatTensor([[1, 1], [1, 1]]), retain_graph=True)
except RuntimeError as e:
    print("complaint:", e)
print("x gradient", x.grad)

x = T.tensor([[-0.7452, 1.5727], [0.1702, 0.7374]], requires_grad=True)
print("x", x)
y = 2 * x
z = y**3
out = z.mean()
print("out", out)
out.backward()
print("x gradient", x.grad)
x.grad.data.zero_()
out.backward()
print("x gradient", x.grad)
