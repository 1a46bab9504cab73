# "How to save memory by fusing the optimizer step into the backward pass" (pytorch.org
# tutorials): register_post_accumulate_grad_hook runs right after a parameter's .grad is
# accumulated, so each parameter can be updated (and its gradient freed) during backward;
# the hooks run in the order torch's engine accumulates.
import torch


def mk(name):
    t = torch.tensor([1.0, 2.0], requires_grad=True)

    def report(p):
        print("hook", name, p.grad)

    t.register_post_accumulate_grad_hook(report)
    return t


a, b, c = mk("a"), mk("b"), mk("c")
(a * 2 + b * 3).sum().backward()
print("--")
((a * b).sum() + (c * 2).sum()).backward()
print("--")
((c * a).sum() + (b * a).sum()).backward()
print("--")
z = a * 2
(z * b + z * c).sum().backward()

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
optimizers = {p: torch.optim.SGD([p], lr=0.1) for p in model.parameters()}


def step(p):
    optimizers[p].step()
    optimizers[p].zero_grad()


handles = [p.register_post_accumulate_grad_hook(step) for p in model.parameters()]
x = torch.ones(4, 3)
for _ in range(3):
    loss = model(x).pow(2).mean()
    loss.backward()
    print(round(loss.item(), 6), model.bias.grad)
print(model.weight, model.bias)
for h in handles:
    h.remove()
loss = model(x).sum()
loss.backward()
print(model.bias.grad)
try:
    (a * 2).register_post_accumulate_grad_hook(print)
except RuntimeError as e:
    print("RuntimeError:", e)
