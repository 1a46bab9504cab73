"""A tensor saved for backward and then modified in place: PyTorch's version-counter error."""

import torch


def attempt(label, make):
    try:
        make()
        print(label, "ok")
    except RuntimeError as e:
        print(label, "RuntimeError:", e)


def saved_input_non_leaf():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    z = y * y
    y.add_(1)
    z.sum().backward()


def saved_leaf_under_no_grad():
    x = torch.ones(3, requires_grad=True)
    z = x * x
    with torch.no_grad():
        x.add_(1)
    z.sum().backward()


def saved_result():
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    y.add_(1)
    y.sum().backward()


def twice_double():
    x = torch.ones(2, 3, requires_grad=True, dtype=torch.float64)
    y = x.sin()
    with torch.no_grad():
        x.mul_(3)
        x.mul_(3)
    y.sum().backward()


def constant_saved():
    x = torch.ones(3, requires_grad=True)
    a = torch.ones(3)
    y = x * a
    a[0] = 2
    y.sum().backward()


def through_detach():
    x = torch.ones(3, requires_grad=True)
    a = torch.ones(3)
    y = x * a
    a.detach().add_(1)
    y.sum().backward()


def through_data():
    x = torch.ones(3, requires_grad=True)
    a = torch.ones(3)
    y = x * a
    a.data.add_(1)
    y.sum().backward()
    print(x.grad)


def unsaved_input():
    x = torch.ones(3, requires_grad=True)
    y = x.sin()
    z = y.exp()
    y.mul_(2)
    z.sum().backward()
    print(x.grad)


def added_not_saved():
    x = torch.ones(3, requires_grad=True)
    y = x * 3
    z = y + 1
    y.mul_(2)
    z.sum().backward()
    print(x.grad)


def sigmoid_result():
    x = torch.ones(3, requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)
    y.sum().backward()


def relu_result():
    x = torch.ones(3, requires_grad=True)
    y = torch.relu(x)
    y *= 2
    y.sum().backward()


def scalar_power():
    x = torch.tensor(2.0, requires_grad=True)
    y = x**2
    with torch.no_grad():
        x += 1
    y.backward()


def zero_and_fill():
    x = torch.ones(3, requires_grad=True)
    y = x.pow(2)
    with torch.no_grad():
        x.zero_()
        x.fill_(2)
    y.sum().backward()


def index_assignment():
    x = torch.ones(3, requires_grad=True)
    y = x.pow(2)
    with torch.no_grad():
        x[0] = 1.0
    y.sum().backward()


def data_index_assignment():
    x = torch.ones(3, requires_grad=True)
    y = x.pow(2)
    x.data[0] = 3.0
    y.sum().backward()
    print(x.grad)


def mul_in_place_then_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.mul_(x)
    y.sum().backward()
    print(x.grad)


def matmul_saved():
    w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    inp = torch.tensor([[1.0], [1.0]])
    out = w @ inp
    inp.mul_(2)
    out.sum().backward()


def view_of_saved():
    x = torch.ones(2, 2, requires_grad=True)
    y = x.sin()
    with torch.no_grad():
        x[0, 0] = 5.0
    y.sum().backward()


for label, make in [
    ("saved_input_non_leaf", saved_input_non_leaf),
    ("saved_leaf_under_no_grad", saved_leaf_under_no_grad),
    ("saved_result", saved_result),
    ("twice_double", twice_double),
    ("constant_saved", constant_saved),
    ("through_detach", through_detach),
    ("through_data", through_data),
    ("unsaved_input", unsaved_input),
    ("added_not_saved", added_not_saved),
    ("sigmoid_result", sigmoid_result),
    ("relu_result", relu_result),
    ("scalar_power", scalar_power),
    ("zero_and_fill", zero_and_fill),
    ("index_assignment", index_assignment),
    ("data_index_assignment", data_index_assignment),
    ("mul_in_place_then_backward", mul_in_place_then_backward),
    ("matmul_saved", matmul_saved),
    ("view_of_saved", view_of_saved),
]:
    attempt(label, make)

w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w * w).sum()
with torch.no_grad():
    w -= 0.1
loss.backward()
