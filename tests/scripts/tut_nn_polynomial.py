# Modelled on "Learning PyTorch with Examples" (pytorch.org), "PyTorch: nn": a third-order
# polynomial fitted to a sine-like curve with nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1)),
# nn.MSELoss(reduction='sum') and a hand-written gradient step over model.parameters().
# Printed to four decimals: float32 matrix products over 2,000 rows (BLAS's summation order)
# may differ from torch's in the last bits (README, "Run a PyTorch script").
import torch
import math

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = x - x * x * x / 6 + x * x * x * x * x / 120  # sin(x) to fifth order: torch.sin and pow(x, 5) in float32 are not modelled to the bit

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape)

model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
loss_fn = torch.nn.MSELoss(reduction='sum')

learning_rate = 1e-6
for t in range(200):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 40 == 39:
        print(t, f"{loss.item():.2f}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.4f} + {linear_layer.weight[:, 0].item():.4f} x + {linear_layer.weight[:, 1].item():.4f} x^2 + {linear_layer.weight[:, 2].item():.4f} x^3')
print(loss.grad_fn, model[0].weight.grad.shape, model[0].bias.grad)
