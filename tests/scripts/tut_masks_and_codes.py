# Masks, bitwise logic and integer codes in a small classifier step, the way
# d2l's softmax chapter and makemore's one-hot encoding write them.
import torch
import torch.nn.functional as F

logits = torch.tensor([[2.0, -1.0, 0.5], [0.1, 0.3, -0.2], [1.5, 1.5, -3.0]], requires_grad=True)
labels = torch.tensor([0, 2, 1])

# which predictions are right, and which rows are confident and wrong
predicted = logits.argmax(dim=1)
right = predicted == labels
confident = logits.max(dim=1).values > 1.0
print(predicted, right, confident & ~right, right | confident, right ^ confident)

# class codes as bits, one-hot rows without num_classes, integer views of a float tensor
codes = labels & torch.tensor([1, 3, 3])
print(codes, codes | 4, ~codes)
print(F.one_hot(labels), logits.long(), (logits > 0).long().sum())

# only the wrong rows count in this loss
mask = (~right).float()
loss = (F.cross_entropy(logits, labels, reduction="none") * mask).sum() / mask.sum()
loss.backward()
print(loss)
print(logits.grad)

# a constant made in the script weighs the classes
weights = torch.arange(1.0, 4.0) / torch.linspace(1, 3, 3)
print(weights, torch.eye(3)[labels], torch.full((2,), 7))

# any/all: the checks tutorials end with
print(right.any(), right.all(), (logits.grad.abs() < 1).all(dim=1), torch.any(codes > 1))
if (weights > 0).all():
    print("all weights positive")
