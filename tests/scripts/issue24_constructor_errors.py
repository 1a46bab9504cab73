"""Constructors given numbers torch cannot hold, or the wrong kind of fill, raise as torch raises (issue 24)."""

import torch


def attempt(label, make):
    try:
        print(label, "->", make())
    except Exception as e:
        print(label, "-> raise", type(e).__name__, str(e).split("\n")[0])


attempt("tensor(2**63)", lambda: torch.tensor(2**63))
attempt("tensor([1, 2**63])", lambda: torch.tensor([1, 2**63]))
attempt("tensor(-2**63)", lambda: torch.tensor(-2**63))
attempt("tensor(-2**63-1)", lambda: torch.tensor(-2**63 - 1))
attempt("tensor([1.5, 2**70])", lambda: torch.tensor([1.5, 2**70]))
attempt("tensor([True, 2**64])", lambda: torch.tensor([True, 2**64]))
attempt("full None", lambda: torch.full((2,), None))
attempt("full 10**30", lambda: torch.full((2,), 10**30))
attempt("full 2**63", lambda: torch.full((2,), 2**63))
attempt("randn size=()", lambda: torch.randn(size=(), requires_grad=True).shape)
attempt("rand size=(2, 3)", lambda: torch.rand(size=(2, 3)).shape)
attempt("randint 2**70", lambda: torch.randint(0, 2**70, (2,)))
attempt("arange inf", lambda: torch.arange(float("inf")))
attempt("zeros size=", lambda: torch.zeros(size=(2,), dtype=torch.float64))
