# The 60-minute blitz's autograd section (a while loop that doubles until the norm is large,
# then a vector-Jacobian product) and "learning PyTorch with examples"' device boilerplate
# with an evaluation function under @torch.no_grad(); fixed values where they use randn.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
dtype = torch.float
print(device, repr(device), torch.cuda.is_available())

x = torch.tensor([0.3, -1.2, 0.8], device=device, dtype=dtype, requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)

a = torch.tensor(0.1, device=device, requires_grad=True)
b = torch.tensor(-0.2, device=device, requires_grad=True)
xs = torch.linspace(-1, 1, 20, device=device).to(device)
ys = (2.5 * xs - 0.5).to(device, dtype)


@torch.no_grad()
def evaluate(a, b):
    pred = a * xs + b
    return ((pred - ys) ** 2).mean()


step = 0
while evaluate(a, b) > 0.05 and step < 200:
    loss = ((a * xs + b - ys) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        a -= 0.1 * a.grad
        b -= 0.1 * b.grad
        a.grad = None
        b.grad = None
    step += 1
final = evaluate(a, b)
print(step, final.requires_grad, f"{final.item():.6f}", a.item(), b.cpu().item())
try:
    x.cuda()
except AssertionError as e:
    print("no cuda:", e)
