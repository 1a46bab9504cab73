"""Answers that were silently wrong before issue 24, each as torch gives it: a hook that
changes its gradient in place, the node names of fill_/zero_ and their saved-tensor
errors, a list that holds itself, and the version counter of an inference tensor."""

import torch


def double_in_place(g):
    g *= 2


x = torch.ones(4, requires_grad=True)
x.register_hook(double_in_place)
(x * 1).sum().backward()
print(x.grad)

w = torch.ones(4, requires_grad=True)
y = w * 3
y.register_hook(double_in_place)
(y * y).sum().backward()
print(w.grad)

for label in ["fill number", "fill tensor", "zero", "index", "slice", "add", "clamp"]:
    y = w * 2
    z = y.sin()
    if label == "fill number":
        y.fill_(2)
    elif label == "fill tensor":
        y.fill_(torch.tensor(2.0))
    elif label == "zero":
        y.zero_()
    elif label == "index":
        y[0] = 5
    elif label == "slice":
        y[1:] = 3
    elif label == "add":
        y.add_(1)
    else:
        y.clamp_(0)
    print(label, y.grad_fn.name())
    try:
        z.sum().backward()
    except RuntimeError as e:
        print(label, "RuntimeError:", e)

a = [1, 2]
a.append(a)
print(a, len(str(a)))
d = {"k": 1}
d["self"] = d
print(d)

with torch.inference_mode():
    t = torch.ones(2) * 2
print(t.requires_grad)
try:
    print(t._version)
except RuntimeError as e:
    print("RuntimeError:", e)
print(round(12345, -30), round(12345, -3), round(-15, -1), round(5, -1))
print(2.5 in range(10), 3 in range(10), max(range(10**5)))
