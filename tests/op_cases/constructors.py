"""Constructors: torch.tensor, zeros, ones, full, eye, arange, linspace and logspace, made from numbers."""

from __future__ import annotations

from . import Case

CASES = [
    Case("tensor", "floats 2x2", (), {"data": ((1.5, -2.0), (0.25, 3.0))}),
    Case("tensor", "class indices", (), {"data": (2, 0, 1)}),
    Case("tensor", "a mask", (), {"data": (True, False, True)}),
    Case("tensor", "a 0-d number", (), {"data": 2.5}),
    Case("tensor", "ints as float64", (), {"data": (1, 2), "dtype": "float"}),
    Case("zeros", "2x3", (), {"size": (2, 3)}),
    Case("ones", "3 as int64", (), {"size": (3,), "dtype": "int64"}),
    Case("full", "2x2 of 0.5", (), {"size": (2, 2), "fill_value": 0.5}),
    Case("full", "an int fill is int64", (), {"size": (3,), "fill_value": 7}),
    Case("eye", "3", (), {"n": 3}),
    Case("eye", "2x4", (), {"n": 2, "m": 4}),
    Case("arange", "5 (int64)", (), {"start": 5}),
    Case("arange", "floats with a step", (), {"start": 0.0, "end": 1.0, "step": 0.3}),
    Case("arange", "counting down", (), {"start": 5, "end": -1, "step": -2}),
    Case("linspace", "0 to 1 in 5", (), {"start": 0.0, "end": 1.0, "steps": 5}),
    Case("linspace", "7 steps, odd", (), {"start": -1.0, "end": 2.0, "steps": 7}),
    Case("logspace", "1e-2 to 1e3 in 6", (), {"start": -2.0, "end": 3.0, "steps": 6}),
    Case("logspace", "base 2, odd", (), {"start": 0.5, "end": 2.0, "steps": 7, "base": 2.0}),
]
