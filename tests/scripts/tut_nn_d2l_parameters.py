# Modelled on d2l.ai 6.2 Parameter Management (state_dict, named_parameters, init by loops, tied params)
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
X = torch.rand(size=(2, 4))
print(net(X))

print(net[2].state_dict())
print(type(net[2].bias), net[2].bias.data)
print(net[2].bias)
print(net[2].weight.grad == None)

print(*[(name, param.shape) for name, param in net[0].named_parameters()])
print(*[(name, param.shape) for name, param in net.named_parameters()])
print(net.state_dict()['2.bias'].data)
print(list(net.state_dict().keys()))


def block1():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(),
                         nn.Linear(8, 4), nn.ReLU())


def block2():
    net = nn.Sequential()
    for i in range(4):
        net.add_module(f'block {i}', block1())
    return net


rgnet = nn.Sequential(block2(), nn.Linear(4, 1))
print(rgnet(X))
print(rgnet)
print(rgnet[0][1][0].bias.data)

# Parameter initialization (explicit loops instead of apply)
for m in net.modules():
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, mean=0, std=0.01)
        nn.init.zeros_(m.bias)
print(net[0].weight.data[0], net[0].bias.data[0])

for m in net.modules():
    if type(m) == nn.Linear:
        nn.init.constant_(m.weight, 1)
        nn.init.zeros_(m.bias)
print(net[0].weight.data[0], net[0].bias.data[0])

nn.init.xavier_uniform_(net[0].weight)
nn.init.constant_(net[2].weight, 42)
print(net[0].weight.data[0])
print(net[2].weight.data)

for name, param in net.named_parameters():
    if 'weight' in name:
        with torch.no_grad():
            param.uniform_(-10, 10)
            param *= param.abs() >= 5
print(net[0].weight[:2])

net[0].weight.data[:] += 1
net[0].weight.data[0, 0] = 42
print(net[0].weight.data[0])

# Tied parameters
shared = nn.Linear(8, 8)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(),
                    shared, nn.ReLU(),
                    shared, nn.ReLU(),
                    nn.Linear(8, 1))
net(X)
print(net[2].weight.data[0] == net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
print(net[2].weight.data[0] == net[4].weight.data[0])
print(len(list(net.parameters())), len(net.state_dict()))
out = net(X).sum()
out.backward()
print(net[2].weight.grad[0])
