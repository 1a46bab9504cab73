"""An int argument given as a one-element integer tensor is its int, as torch's __index__ reads
it; a list, a float or a float tensor there is torch's TypeError (randint, chunk), and the error
never shows a Python object's address."""

import torch

x = torch.tensor([1.5, -2.0, 3.0])


def attempt(label, make):
    try:
        print(label, "->", make())
    except TypeError as e:
        print(label, "-> raise", type(e).__name__)
    except Exception as e:
        print(label, "-> raise", type(e).__name__, str(e).split("\n")[0])


attempt("randint tensor low", lambda: torch.randint(torch.tensor(1), 3, (2,)).shape)
attempt("randint tensor high", lambda: torch.randint(0, torch.tensor(3), (4,)).dtype)
attempt("randint list high", lambda: torch.randint(0, [1, 2], (2,)))
attempt("randint float low", lambda: torch.randint(0.5, 3, (2,)))
attempt("randint high <= low", lambda: torch.randint(3, 1, (2,)))
attempt("chunk tensor", lambda: x.chunk(torch.tensor(2)))
attempt("torch.chunk tensor", lambda: torch.chunk(x, torch.tensor(3)))
attempt("chunk list", lambda: torch.chunk(x, [1, 2]))
attempt("chunk float", lambda: x.chunk(2.0))
attempt("chunk float tensor", lambda: x.chunk(torch.tensor(2.0)))
attempt("chunk 0", lambda: x.chunk(0))
