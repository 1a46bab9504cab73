"""In-place variants in `gradcli run` against torch 2.13: every elementwise registry record's
x.name_(...) (on a tensor in a graph, through a view of one, on a leaf, on an int tensor), the
in-place view ops (unsqueeze_, squeeze_, t_, transpose_), and the table of in-place names itself,
which is derived from the registry and must be exactly the methods torch has."""

from __future__ import annotations

import random
import re

import pytest
from oracle import torch, torch_stdouts
from script_run import run_script

from gradcli.ops import NOT_METHODS, REGISTRY, TORCH_SPELLINGS
from gradcli.script import tensor_methods

IN_PLACE = tensor_methods._IN_PLACE_CALLS
# the arguments each in-place call takes here (none: a unary op); `w` is a tensor like x
ARGUMENTS = {
    "clamp_": "min=0.3, max=0.6",
    "clip_": "0.3, 0.6",
    "clamp_min_": "0.4",
    "clamp_max_": "0.4",
    "masked_fill_": "torch.tensor([True, False, True]), 0.0",
    "cumsum_": "0",
    "cumprod_": "0",
    "atan2_": "w",
    "arctan2_": "w",
    "remainder_": "0.3",
    "fmod_": "0.3",
    "floor_divide_": "0.3",
    "divide_": "w",
    "true_divide_": "w",
    "multiply_": "w",
    "subtract_": "w",
    "logical_and_": "w",
    "logical_or_": "w",
    "logical_xor_": "w",
}
COMPARING = {"eq_", "ne_", "gt_", "ge_", "lt_", "le_", "greater_", "greater_equal_", "less_", "less_equal_"}
COMPARING |= {"not_equal_"}
ARGUMENTS |= dict.fromkeys(COMPARING, "0.5")
# values inside each op's domain (acosh wants x >= 1)
VALUES = {"acosh_": "[1.25, 1.5, 2.0]", "arccosh_": "[1.25, 1.5, 2.0]"}


def _call(name: str, receiver: str) -> str:
    return f"{receiver}.{name}({ARGUMENTS.get(name, '')})"


def _recorded(name: str) -> bool:
    return name not in COMPARING and not name.startswith("logical_")


def _scripts(name: str) -> list[str]:
    values = VALUES.get(name, "[0.25, 0.5, 0.75]")
    head = [
        "import torch",
        f"x = torch.tensor({values}, dtype=torch.float64, requires_grad=True)",
        "w = torch.tensor([0.5, 2.0, 1.5], dtype=torch.float64, requires_grad=True)",
    ]
    grads = "print(x.grad, w.grad)"
    scripts = []
    if _recorded(name):
        # on a tensor in a graph: values, grad_fn, its inputs, the version, the gradients
        scripts.append(
            [
                *head,
                "y = x * 1",
                f"r = {_call(name, 'y')}",
                "print(r is y, y, y._version, y.grad_fn.next_functions)",
                "(y * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()",
                grads,
            ]
        )
        # through a view: the base's CopySlices and the view's AsStridedBackward0
        if name not in ("cumsum_", "cumprod_", "masked_fill_"):
            scripts.append(
                [
                    *head,
                    "y = x * 1",
                    "v = y[1:]",
                    _call(name, "v").replace("w)", "w[1:])").replace("w,", "w[1:],"),
                    "print(y, y.grad_fn.next_functions, v.grad_fn, v._version)",
                    "y.sum().backward()",
                    grads,
                ]
            )
        # on the leaf itself: torch's error
        scripts.append([*head, _call(name, "x")])
        # under no_grad the leaf is written, and its version moves
        scripts.append([*head, "with torch.no_grad():", f"    {_call(name, 'x')}", "print(x, x._version)"])
    else:
        scripts.append([*head, "y = x.detach()", _call(name, "y"), "print(y, y._version, x)"])
    # an integer tensor: the result's dtype must fit (torch's cast error where it does not)
    integer = name not in ("masked_fill_",) and "w" not in ARGUMENTS.get(name, "")
    if integer:
        scripts.append(["import torch", "x = torch.tensor([1, 2, 3])", _call(name, "x"), "print(x)"])
    return ["\n".join(lines) + "\n" for lines in scripts]


NAMES = sorted(IN_PLACE)
SCRIPTS = {name: _scripts(name) for name in NAMES}
_ADDRESS = re.compile(r" object at 0x[0-9a-f]+")


@pytest.fixture(scope="module")
def torch_outputs() -> dict[str, list[str]]:
    flat = [s for name in NAMES for s in SCRIPTS[name]]
    outputs = iter(torch_stdouts(flat))
    return {name: [next(outputs) for _ in SCRIPTS[name]] for name in NAMES}


def _same(script: str, theirs: str) -> None:
    ours = run_script(script)
    if "!" in theirs:
        printed, error = theirs.rsplit("!", 1)
        assert ours.error is not None, f"{script}\ntorch: {error}\ngradcli printed:\n{ours.stdout}"
        assert ours.error.split(": ", 1)[1] == error, script
        assert _ADDRESS.sub("", ours.stdout) == _ADDRESS.sub("", printed), script
        return
    assert ours.error is None, f"{script}\n{ours.error}"
    assert _ADDRESS.sub("", ours.stdout) == _ADDRESS.sub("", theirs), script


@pytest.mark.parametrize("name", NAMES)
def test_an_in_place_variant_prints_and_differentiates_as_torch(name, torch_outputs):
    for script, theirs in zip(SCRIPTS[name], torch_outputs[name], strict=True):
        _same(script, theirs)


def test_the_in_place_names_are_the_methods_torch_has():
    """Derived from the registry: every method spelling of an elementwise record whose in-place
    variant torch has, and no name torch lacks."""
    for name in IN_PLACE:
        assert hasattr(torch.Tensor, name), f"torch has no Tensor.{name}"
    for name, spelling in TORCH_SPELLINGS.items():
        op = REGISTRY.get(spelling.op)
        if op is None or name in NOT_METHODS or not (op.elementwise or op.gives_mask):
            continue
        if f"{name}_" in tensor_methods._IN_PLACE_METHODS:
            continue
        assert (f"{name}_" in IN_PLACE) == hasattr(torch.Tensor, f"{name}_"), name


def test_the_torch_in_place_functions_are_the_ones_torch_has():
    # what a call torch.sin_(x) would be sent to x.sin_() for
    assert {n for n in IN_PLACE if hasattr(torch, n)} == tensor_methods.TORCH_IN_PLACE_FUNCTIONS


# -- the in-place view ops ----------------------------------------------------------------

VIEW_CALLS = ["unsqueeze_({d})", "squeeze_()", "squeeze_({d})", "t_()", "transpose_({d}, {e})"]


def _view_script(seed: int) -> str:
    r = random.Random(seed)
    shape = [r.choice([1, 2, 3]) for _ in range(r.randint(1, 3))]
    calls = []
    rank = len(shape)
    for _ in range(r.randint(1, 3)):
        call = r.choice(VIEW_CALLS)
        bound = rank + 1 if call.startswith("unsqueeze") else max(rank, 1)
        calls.append(call.format(d=r.randrange(-bound - 1, bound + 1), e=r.randrange(-bound, bound)))
    n = 1
    for s in shape:
        n *= s
    leaf = r.random() < 0.15
    lines = [
        "import torch",
        f"x = torch.arange(1.0, {n + 1}.0).reshape({shape}).requires_grad_()",
        "y = x" if leaf else r.choice(["y = x * 1", "y = (x * 2)[0:1]", "y = x.exp()"]),
        "try:",
        *(f"    y.{c}" for c in calls),
        "    print(y, y.shape, y.is_contiguous(), y._version, y.grad_fn)",
        "    f = y.grad_fn",
        "    while f is not None and f.next_functions:",
        "        print(f.name())",
        "        f = f.next_functions[0][0]",
        "    (y * torch.arange(y.numel()).reshape(y.shape)).sum().backward()",
        "    print(x.grad)",
        "except (RuntimeError, IndexError) as e:",
        "    print(type(e).__name__, e)",
    ]
    if r.random() < 0.5 and not leaf:
        lines += ["y = x * 1", f"y.{calls[0]}", "y.sin_()", "y[0] = 2.0", "print(y, y.grad_fn)"]
    return "\n".join(lines) + "\n"


VIEW_COUNT = 40


@pytest.fixture(scope="module")
def view_outputs() -> list[str]:
    return torch_stdouts([_view_script(seed) for seed in range(VIEW_COUNT)])


@pytest.mark.parametrize("seed", range(VIEW_COUNT))
def test_in_place_view_ops_print_what_torch_prints(seed, view_outputs):
    _same(_view_script(seed), view_outputs[seed])


# unary in-place calls torch also has as torch.name_; acosh_ and friends raise at backward, which
# torch does before it checks the other nodes' saved tensors (gradcli checks those first)
UNARY = sorted(
    n
    for n in tensor_methods.TORCH_IN_PLACE_FUNCTIONS
    if n not in ("acosh_", "arccosh_", "asinh_", "arcsinh_", "atanh_", "arctanh_")
)


def _chain_script(seed: int) -> str:
    """y.op1_().op2_()...: each returns y; the chain's values, version, gradient are torch's."""
    r = random.Random(seed)
    names = [r.choice(UNARY) for _ in range(r.randint(1, 4))]
    values = [round(r.uniform(0.1, 0.9), 3) for _ in range(r.randint(1, 4))]
    chain = "".join(f".{n}({ARGUMENTS.get(n, '')})" for n in names)
    return (
        "import torch\n"
        f"x = torch.tensor({values}, dtype=torch.float64, requires_grad=True)\n"
        "y = x * 1\n"
        "try:\n"
        f"    print(y{chain} is y, y._version, y.grad_fn)\n"
        "    y.sum().backward()\n"
        "    print(x.grad)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
    )


CHAIN_COUNT = 60


@pytest.fixture(scope="module")
def chain_outputs() -> list[str]:
    return torch_stdouts([_chain_script(seed) for seed in range(CHAIN_COUNT)])


@pytest.mark.parametrize("seed", range(CHAIN_COUNT))
def test_a_chain_of_in_place_unary_ops_matches_torch(seed, chain_outputs):
    _same(_chain_script(seed), chain_outputs[seed])
