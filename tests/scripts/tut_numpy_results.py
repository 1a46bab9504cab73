# Modelled on tutorials that hand results to NumPy for printing or plotting: x.detach().numpy().round(2), .mean(), .tolist()
import torch
x = torch.linspace(-1.0, 1.0, 5)
a = x.numpy()
print(a.round(1), a.mean(), a.sum(), a.max(), a.argmax(), a.tolist(), a.std(), a.round(decimals=2).tolist())
m = torch.arange(6.0).reshape(2, 3).numpy()
print(m.sum(axis=0), m.mean(axis=1, keepdims=True), m.flatten(), m.item(4), m.cumsum())
