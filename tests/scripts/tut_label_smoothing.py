# Modelled on label-smoothing and one-hot tutorials: targets built with zeros(...).scatter_(1, labels.unsqueeze(1), 1.0)
import torch
labels = torch.tensor([0, 2, 1])
one_hot = torch.zeros(3, 3).scatter_(1, labels.unsqueeze(1), 1.0)
print(one_hot)
print(torch.zeros(3, 3).scatter(1, labels.unsqueeze(1), torch.tensor([[5.0], [6.0], [7.0]])))
print(torch.zeros(2, 4).scatter_(0, torch.tensor([[1, 0, 1, 0]]), torch.arange(8.0).reshape(2, 4)))
smooth = torch.full((3, 3), 0.1 / 2).scatter_(1, labels.unsqueeze(1), 0.9)
logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0], [1.0, 2.0, 0.0]], requires_grad=True)
loss = -(smooth * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
loss.backward()
print(loss, logits.grad)
for bad in range(3):
    try:
        if bad == 0:
            torch.zeros(3, 3).scatter_(1, torch.tensor([[5]]), 1.0)
        elif bad == 1:
            torch.zeros(3, 3).scatter_(1, torch.tensor([5]), 1.0)
        else:
            torch.zeros(3, 3).scatter_(1, torch.tensor([[1.0]]), 1.0)
    except RuntimeError as e:
        print(e)
print(torch.zeros(3, dtype=torch.long).scatter_(0, torch.tensor([1]), 2))
