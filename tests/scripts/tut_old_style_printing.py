# Printing as older tutorials and the numpy-bridge docs do it: %-formatting with numbers
# and tensors, and .numpy() arrays printed with NumPy's own str.
import torch

w = torch.tensor([0.5, -1.25, 3.0], requires_grad=True)
x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
for step in range(3):
    loss = ((x @ w - 1.0) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
    print("[%d, %5d] loss: %.3f" % (step + 1, 2000 * step, loss.item()))
    print("step %d: loss %s, w %r" % (step, loss.detach(), w.detach()))

print("%(name)s = %(value).4f%%" % {"name": "accuracy", "value": 93.25})
print("%5.2f | %-6s|%+d" % (w[0].item(), "ok", 3))
print("%.2f and %d" % (loss, 7))

array = w.detach().numpy()
print(array, array.shape, array.ndim)
print(f"weights: {array}", x.numpy())
print(x.sum().numpy(), x.T.numpy())
