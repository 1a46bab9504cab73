# Modelled on pytorch.org docs examples for nn.ModuleList / nn.ModuleDict / nn.ParameterList
import torch
import torch.nn as nn

torch.manual_seed(0)


class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.linears = nn.ModuleList([nn.Linear(10, 10) for i in range(4)])

    def forward(self, x):
        # ModuleList can act as an iterable, or be indexed using ints
        for i, l in enumerate(self.linears):
            x = self.linears[i // 2](x) + l(x)
        return x


m = MyModule()
print(m)
x = torch.randn(2, 10)
print(m(x))


class MyModule2(nn.Module):
    def __init__(self):
        super().__init__()
        self.choices = nn.ModuleDict({
            'lin_a': nn.Linear(10, 3),
            'lin_b': nn.Linear(10, 3),
        })
        self.activations = nn.ModuleDict([
            ['lrelu', nn.LeakyReLU()],
            ['prelu_like', nn.ELU()],
            ['tanh', nn.Tanh()],
        ])

    def forward(self, x, choice, act):
        x = self.choices[choice](x)
        x = self.activations[act](x)
        return x


m2 = MyModule2()
print(m2)
print(m2(x, 'lin_a', 'lrelu'))
print(m2(x, 'lin_b', 'tanh'))
print(list(m2.choices.keys()), len(m2.activations))
for name, mod in m2.named_modules():
    print(repr(name), type(mod).__name__)

m.linears.append(nn.Identity())
m.linears.extend([nn.Softplus(), nn.GELU()])
print(len(m.linears), m.linears[-1])
print(sum(p.numel() for p in m.parameters() if p.requires_grad))
for name, buf in m.named_children():
    print(name)
