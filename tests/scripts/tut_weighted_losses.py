# Modelled on the PyTorch docs of F.cross_entropy / F.nll_loss weight= and F.binary_cross_entropy_with_logits pos_weight= (class imbalance)
import torch
import torch.nn.functional as F
x = torch.tensor([[0.1, 0.2, 0.3, 0.4], [1.0, -1.0, 0.5, 0.0]], requires_grad=True)
y = torch.tensor([1, 3])
w = torch.tensor([1.0, 2.0, 0.5, 3.0])
l = F.cross_entropy(x, y, weight=w)
print(l, l.grad_fn.name())
l.backward()
print(x.grad)
print(F.nll_loss(x, y, w, reduction='none'))
t = torch.tensor([[0.0, 1.0, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0]])
print(F.binary_cross_entropy_with_logits(x, t, pos_weight=w))
print(F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=w, reduction='sum'))
print(F.binary_cross_entropy(torch.sigmoid(x), t, weight=w))
for bad in range(4):
    try:
        if bad == 0:
            F.nll_loss(x, y, weight=torch.ones(3))
        elif bad == 1:
            F.cross_entropy(x, y, weight=w.requires_grad_())
        elif bad == 2:
            F.binary_cross_entropy_with_logits(x, t, pos_weight=torch.ones(3))
        else:
            F.binary_cross_entropy(torch.sigmoid(x), t, weight=torch.ones(3))
    except RuntimeError as e:
        print(e)
