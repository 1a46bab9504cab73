# Parameters and hyperparameters kept in dicts, as d2l.ai's optimisers take
# hyperparams={'lr': ...} and PyTorch code keeps dict(model.named_parameters()); a missing
# key ends the script with Python's KeyError
import torch
hyper = {"lr": 0.1, "momentum": 0.9}
params = {"w": torch.tensor([1.0, -2.0], requires_grad=True), "b": torch.zeros(1, requires_grad=True)}
print(hyper, len(hyper), "lr" in hyper, hyper.get("wd", 0.0))
for name in params:
    print(name, params[name].shape)
for name, p in params.items():
    print(name, p)
loss = (params["w"] ** 2).sum() + params["b"].sum()
loss.backward()
with torch.no_grad():
    for p in params.values():
        p -= hyper["lr"] * p.grad
print(params)
hyper["lr"] = 0.01
hyper.update({"wd": 1e-4})
print(hyper, list(hyper.keys()), sorted(hyper))
try:
    hyper["missing"]
except Exception as e:
    print("caught", e)
print(hyper["missing"])
