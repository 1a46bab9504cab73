# torch.set_printoptions as tutorials use it to read numbers: precision, sci_mode, summarising
# (threshold, edgeitems), linewidth and the profiles.
import torch
x = torch.tensor([1.23456, 2.34567, 1e-5])
torch.set_printoptions(precision=2)
print(x, x * 1000)
torch.set_printoptions(sci_mode=False)
print(x)
torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(10), torch.arange(12.).reshape(3, 4))
torch.set_printoptions(linewidth=30)
print(torch.linspace(0, 1, 9))
torch.set_printoptions(profile="short")
print(torch.arange(10.) / 3)
torch.set_printoptions(profile="default")
print(torch.arange(10.) / 3)
torch.set_printoptions(profile="full")
print(torch.arange(1200)[-3:])
