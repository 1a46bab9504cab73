"""Constructors given numbers torch cannot hold, or the wrong kind of fill, raise as torch raises (issue 24)."""

import torch
try:
    print('torch.tensor(2**63)', '->', torch.tensor(2**63))
except Exception as e:
    print('torch.tensor(2**63)', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.tensor([1, 2**63])', '->', torch.tensor([1, 2**63]))
except Exception as e:
    print('torch.tensor([1, 2**63])', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.tensor(-2**63)', '->', torch.tensor(-2**63))
except Exception as e:
    print('torch.tensor(-2**63)', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.tensor(-2**63-1)', '->', torch.tensor(-2**63-1))
except Exception as e:
    print('torch.tensor(-2**63-1)', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.tensor([1.5, 2**70])', '->', torch.tensor([1.5, 2**70]))
except Exception as e:
    print('torch.tensor([1.5, 2**70])', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.tensor([True, 2**64])', '->', torch.tensor([True, 2**64]))
except Exception as e:
    print('torch.tensor([True, 2**64])', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.full((2,), None)', '->', torch.full((2,), None))
except Exception as e:
    print('torch.full((2,), None)', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.full((2,), 10**30)', '->', torch.full((2,), 10**30))
except Exception as e:
    print('torch.full((2,), 10**30)', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.full((2,), 2**63)', '->', torch.full((2,), 2**63))
except Exception as e:
    print('torch.full((2,), 2**63)', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.randn(size=(), requires_grad=True).shape', '->', torch.randn(size=(), requires_grad=True).shape)
except Exception as e:
    print('torch.randn(size=(), requires_grad=True).shape', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.rand(size=(2,3)).shape', '->', torch.rand(size=(2,3)).shape)
except Exception as e:
    print('torch.rand(size=(2,3)).shape', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.randint(0, 2**70, (2,))', '->', torch.randint(0, 2**70, (2,)))
except Exception as e:
    print('torch.randint(0, 2**70, (2,))', '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print("torch.arange(float('inf'))", '->', torch.arange(float('inf')))
except Exception as e:
    print("torch.arange(float('inf'))", '-> raise', type(e).__name__, str(e).split('\n')[0])
try:
    print('torch.zeros(size=(2,), dtype=torch.float64)', '->', torch.zeros(size=(2,), dtype=torch.float64))
except Exception as e:
    print('torch.zeros(size=(2,), dtype=torch.float64)', '-> raise', type(e).__name__, str(e).split('\n')[0])
