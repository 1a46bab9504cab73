"""Every op record in the registry, checked on its own against PyTorch and finite differences.

One table of cases names the operands each op is tried on (shapes, Python numbers,
attributes). For each case: the NumPy forward equals torch's, every per-operand VJP
rule (after the engine's unbroadcast) equals torch.autograd.grad and central finite
differences, the grad_fn name equals torch's, and `saves_tensors` says exactly whether
torch refuses a second backward without retain_graph. An op without a case fails
test_every_registered_op_has_cases, so a new record cannot slip past these checks.
"""

from __future__ import annotations

import numpy as np
import op_cases
import pytest
from op_cases import FAMILY_CASES, Case, away_from_zero, missing_case_message, uniform
from oracle import TORCH_OPS, close, torch

from gradcli import GradcliError, grad
from gradcli.ops import OPS, REGISTRY, unbroadcast

# Tensor.T on 0-D/1-D tensors is deprecated in torch (a warning, once per process); gradcli
# accepts it as PyTorch still does.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _unary_cases() -> list[Case]:
    domains = {
        "asin": (-0.9, 0.9),
        "acos": (-0.9, 0.9),
        "log": (0.5, 2.0),
        "sqrt": (0.5, 2.0),
        "log1p": (-0.5, 2.0),
        "tan": (-1.0, 1.0),
    }
    cases = []
    for name in ("neg", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "log"):
        cases.append(Case(name, "2x3", (uniform(*domains.get(name, (-2.0, 2.0)), (2, 3)),)))
    for name in ("log1p", "sqrt", "sigmoid"):
        cases.append(Case(name, "2x3", (uniform(*domains.get(name, (-2.0, 2.0)), (2, 3)),)))
    cases.append(Case("abs", "2x3", (away_from_zero((2, 3)),)))
    cases.append(Case("relu", "2x3", (away_from_zero((2, 3)),)))
    cases.append(Case("softplus", "both sides of the threshold", (np.array([-3.0, 0.5, 19.0, 25.0]),)))
    cases.append(Case("sin", "0-d", (np.array(0.7),)))
    return cases


def _binary_cases() -> list[Case]:
    cases = []
    for name in ("add", "sub", "mul", "div"):
        cases.append(Case(name, "2x3 with 3 (broadcast)", (uniform(-2, 2, (2, 3)), away_from_zero((3,)))))
        cases.append(
            Case(name, "3x1 with 3 (both broadcast)", (uniform(-2, 2, (3, 1)), away_from_zero((3,))))
        )
        cases.append(Case(name, "tensor with number", (uniform(-2, 2, (3,)), 1.5)))
        cases.append(Case(name, "number with tensor", (1.5, away_from_zero((3,)))))
    cases += [
        Case("pow", "tensor ** number", (uniform(0.5, 2, (2, 3)), 2.5)),
        Case("pow", "tensor ** 0", (uniform(-2, 2, (3,)), 0.0)),
        Case("pow", "tensor ** tensor (broadcast)", (uniform(0.5, 2, (2, 3)), uniform(-2, 2, (3,)))),
        Case("pow", "number ** tensor", (2.0, uniform(-2, 2, (3,)))),
    ]
    return cases


def _tensor_cases() -> list[Case]:
    cases = [
        Case("matmul", "2-D @ 2-D", (uniform(-2, 2, (2, 3)), uniform(-2, 2, (3, 2)))),
        Case("matmul", "2-D @ 1-D", (uniform(-2, 2, (2, 3)), uniform(-2, 2, (3,)))),
        Case("matmul", "1-D @ 2-D", (uniform(-2, 2, (3,)), uniform(-2, 2, (3, 2)))),
        Case("matmul", "1-D @ 1-D", (uniform(-2, 2, (3,)), uniform(-2, 2, (3,)))),
    ]
    for name in ("sum", "mean"):
        for label, shape, attrs in (
            ("all", (2, 3), {"dim": None, "keepdim": False}),
            ("dim=0", (2, 3), {"dim": 0, "keepdim": False}),
            ("dim=-1 keepdim", (2, 3), {"dim": -1, "keepdim": True}),
            ("keepdim without dim", (2, 3), {"dim": None, "keepdim": True}),
            ("1-D", (3,), {"dim": None, "keepdim": False}),
            ("0-D dim=0", (), {"dim": 0, "keepdim": False}),
            ("0-D", (), {"dim": None, "keepdim": False}),
            ("dims (0, 2)", (2, 3, 2), {"dim": (0, 2), "keepdim": False}),
            ("dims (-1, 1) keepdim", (2, 3, 2), {"dim": (-1, 1), "keepdim": True}),
        ):
            cases.append(Case(name, label, (uniform(-2, 2, shape),), attrs))
    for name in ("t", "T"):
        for shape in ((2, 3), (3,), ()):
            cases.append(Case(name, f"{len(shape)}-D", (uniform(-2, 2, shape),)))
    return cases


CASES = _unary_cases() + _binary_cases() + _tensor_cases() + FAMILY_CASES
# Cases of ops with a gradient; comparisons, detach and *_like give none (checked apart).
# torch records these but has no formula: the result requires grad, backward raises
NOT_IMPLEMENTED_CASES = [case for case in CASES if REGISTRY[case.op].grad_fn == "NotImplemented"]
GRAD_CASES = [case for case in CASES if REGISTRY[case.op].differentiable and case not in NOT_IMPLEMENTED_CASES]
NO_GRAD_CASES = [case for case in CASES if not REGISTRY[case.op].differentiable]


@pytest.mark.parametrize("name", sorted(op.name for op in OPS))
def test_every_registered_op_has_cases(name: str) -> None:
    assert any(case.op == name for case in CASES), missing_case_message(name)


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("relu", "tests/test_ops.py (_unary_cases"),
        ("gather", "tests/op_cases/picking.py"),
        ("no_such_op", "a new tests/op_cases/<family>.py"),
    ],
)
def test_an_op_without_a_case_is_named_with_where_its_case_goes(monkeypatch, name, where):
    monkeypatch.setattr(op_cases, "_ALL_CASES", lambda: [])
    with pytest.raises(op_cases.MissingCase) as raised:
        op_cases.example(name)  # what test modules call while collecting
    assert f"the op {name!r}" in str(raised.value) and where in str(raised.value)


def torch_arguments(case: Case, wanted: set[int] | None = None) -> list:
    """The case's operands in torch: numbers, long class indices, bool masks, and float64
    tensors that require grad (all of them, or the positions in `wanted`)."""
    args: list = []
    for position, operand in enumerate(case.operands):
        if isinstance(operand, float):
            args.append(operand)
        elif position in case.integers:
            args.append(torch.tensor(operand, dtype=torch.long))
        elif position in case.masks:
            args.append(torch.tensor(operand != 0))
        else:
            grad = wanted is None or position in wanted
            args.append(torch.tensor(operand, dtype=torch.float64, requires_grad=grad))
    return args


def run_in_torch(case: Case):
    """The op in torch on fresh leaves: (output, the leaves, the torch-side operands)."""
    args = torch_arguments(case)
    leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    out = TORCH_OPS[case.op](*args, **case.attrs)
    return out, leaves


def upstream(shape: tuple[int, ...]) -> np.ndarray:
    return uniform(-1.5, 1.5, shape)


def gradcli_vjps(case: Case, g: np.ndarray) -> list[np.ndarray]:
    """Each tensor operand's gradient by the op's own rules, unbroadcast as the engine does."""
    op = REGISTRY[case.op]
    out = np.asarray(op.forward(*case.operands, **case.attrs))
    grads = []
    for position, operand in enumerate(case.operands):
        if isinstance(operand, float) or position in case.integers or position in case.masks:
            continue
        rule = op.vjp[position]
        grads.append(unbroadcast(rule(g, out, *case.operands, **case.attrs), operand.shape))
    return grads


@pytest.mark.parametrize("case", CASES, ids=str)
def test_forward_equals_torch(case: Case) -> None:
    op = REGISTRY[case.op]
    out, _ = run_in_torch(case)
    mine = np.asarray(op.forward(*case.operands, **case.attrs))
    assert mine.shape == op.shape(case.shapes, case.attrs) == tuple(out.shape)
    assert close(mine, out.detach().numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_vjp_equals_torch(case: Case) -> None:
    out, leaves = run_in_torch(case)
    g = upstream(tuple(out.shape))
    want = torch.autograd.grad(out, leaves, torch.tensor(g, dtype=torch.float64))
    for mine, theirs in zip(gradcli_vjps(case, g), want, strict=True):
        assert close(mine, theirs.numpy(), rtol=1e-12, atol=1e-14), (mine, theirs)


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_vjp_equals_central_finite_differences(case: Case) -> None:
    op = REGISTRY[case.op]
    g = upstream(op.shape(case.shapes, case.attrs))
    step = 1e-6

    def objective(operands) -> float:
        return float(np.sum(g * np.asarray(op.forward(*operands, **case.attrs))))

    tensor_positions = [
        i
        for i, o in enumerate(case.operands)
        if not isinstance(o, float) and i not in case.integers and i not in case.masks
    ]
    for position, analytic in zip(tensor_positions, gradcli_vjps(case, g), strict=True):
        base = case.operands[position]
        numeric = np.zeros_like(base)
        for index in np.ndindex(base.shape):
            shifted = []
            for sign in (1, -1):
                moved = base.copy()
                moved[index] += sign * step
                operands = list(case.operands)
                operands[position] = moved
                shifted.append(objective(operands))
            numeric[index] = (shifted[0] - shifted[1]) / (2 * step)
        assert close(analytic, numeric, rtol=1e-5, atol=1e-6), (position, analytic, numeric)


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_grad_fn_name_equals_torch(case: Case) -> None:
    out, _ = run_in_torch(case)
    assert REGISTRY[case.op].grad_fn_for(case.kinds, case.shapes, case.attrs) == out.grad_fn.name()


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_saves_tensors_iff_torch_refuses_a_second_backward(case: Case) -> None:
    out, _ = run_in_torch(case)
    g = torch.ones_like(out)
    out.backward(g)
    try:
        out.backward(g)
        refused = False
    except RuntimeError as error:
        assert "Trying to backward through the graph a second time" in str(error)
        refused = True
    assert REGISTRY[case.op].saves_tensors == refused


@pytest.mark.parametrize("case", NO_GRAD_CASES, ids=str)
def test_ops_without_a_gradient_give_torch_a_tensor_without_grad_fn(case: Case) -> None:
    out, leaves = run_in_torch(case)
    made = REGISTRY[case.op].new_dtype is not None  # a constructor has no operands to lead from
    assert (leaves or made) and out.grad_fn is None and not out.requires_grad


@pytest.mark.parametrize("case", NOT_IMPLEMENTED_CASES, ids=str)
def test_ops_without_a_formula_raise_torchs_error_at_backward(case: Case) -> None:
    out, _ = run_in_torch(case)
    assert out.requires_grad and out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError) as theirs:
        out.sum().backward()
    program = f"torch.{case.op}(a, b).sum()"
    at = {name: operand for name, operand in zip("ab", case.operands, strict=True)}
    with pytest.raises(GradcliError) as mine:
        grad(program, at=at)
    assert str(theirs.value) == str(mine.value) == f"derivative for aten::{case.op} is not implemented"
