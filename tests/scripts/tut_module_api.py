# Modelled on the torch.nn.Module API as tutorials use it (pytorch.org "What is torch.nn really?",
# d2l "Layers and Modules" / "Parameter Management"): super(Net, self).__init__(), helper
# methods, nn.Parameter attributes, ModuleList and ModuleDict, children and named_modules,
# state_dict / load_state_dict, train() / eval(), requires_grad_, and a plain dataset class.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)


class MLP(nn.Module):
    def __init__(self, sizes):
        super(MLP, self).__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])
        self.scale = nn.Parameter(torch.ones(1))
        self.acts = nn.ModuleDict({"relu": nn.ReLU(), "tanh": nn.Tanh()})
        self.name = "mlp"

    def hidden(self, x):
        for layer in self.layers[:-1]:
            x = self.acts["tanh"](layer(x))
        return x

    def forward(self, x):
        return self.layers[-1](self.hidden(x)) * self.scale


net = MLP([2, 3, 3, 1])
print(net)
print(net.name, len(net.layers), net.training)
for name, module in net.named_modules():
    print(repr(name), type(module).__name__)
print([type(c).__name__ for c in net.children()])
print([n for n, p in net.named_parameters()])
print(sum(p.numel() for p in net.parameters() if p.requires_grad))

x = torch.tensor([[0.5, -1.0], [2.0, 0.25]])
out = net(x)
print(out)
out.sum().backward()
print(net.scale.grad, net.layers[0].bias.grad)

state = net.state_dict()
print(list(state.keys()))
print(state["layers.2.bias"])
other = MLP([2, 3, 3, 1])
print(other.load_state_dict(state))
print(torch.equal(other(x), net(x)))

net.eval()
print(net.training, net.layers[0].training)
net.train()
print(net.acts["relu"].training)
net.requires_grad_(False)
print(net.layers[0].weight.requires_grad)
net.zero_grad()
print(net.scale.grad)


class Squares:
    def __init__(self, n):
        self.xs = torch.arange(n, dtype=torch.float32)

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return self.xs[i], self.xs[i] ** 2


data = Squares(4)
print(len(data), data[2])
for x_i, y_i in data:
    print(x_i.item(), y_i.item())
print(isinstance(net, nn.Module), isinstance(data, Squares), isinstance(net.layers[0], nn.Linear))
print(F.mse_loss(net(torch.ones(1, 2)), torch.zeros(1, 1)))
