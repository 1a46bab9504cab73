"""Every op of the registry, called in a `grad` program with wrong and boundary arguments,
ends with an answer or one `error:` line (exit 1): never an internal error.

Arguments come from a fixed hostile list (missing and extra arguments, None, strings,
tensors where ints are expected, 10**30, nan/inf, negative dims, empty tuples), in function,
method and torch./F./np. spellings, on leaves of several shapes (0-d, empty, 3-D with a 0).
CI runs a sweep and a short Hypothesis run; GRADCLI_FUZZ_EXAMPLES=20000 runs longer.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcli import api
from gradcli.errors import GradcliError
from gradcli.ops import COMPOSITES, REGISTRY, TORCH_SPELLINGS

NAMES = sorted(TORCH_SPELLINGS)
VALUES = (
    "None", "x", "y", "0", "1", "-1", "-7", "2.5", "10**30", "-10**30", "nan", "inf", "-inf", "()",
    "(0,)", "(1, 0)", "(-1,)", "(10**30,)", "True", "'a'", "[0]", "(x,)", "x.shape[0]", "len(x) - 1",
)  # fmt: skip
SHAPES = ((2, 3), (), (0,), (3,), (2, 0, 2))
CONSTS = (
    np.array([0, 1]),
    np.array(1.5),
    np.zeros((2, 3)),
    np.array([True, False]),
    np.array([], dtype=np.int64),
)
# The sweep: each op with these arguments, as a function and as a method.
SWEEP_CALLS = ("", "None", "0", "10**30", "nan", "()", "'a'", "x, x", "x, None", "x, -5", "x, 10**30", "x, ()",
               "x, 0, 0, 0, 0, 0", "x, dim=x", "x, dim=None", "x, nope=1")  # fmt: skip
SWEEP_METHODS = (
    "",
    "None",
    "x",
    "-5",
    "10**30",
    "nan",
    "()",
    "'a'",
    "0, 10**30",
    "dim=x",
    "dim=()",
    "nope=1",
)


def _params(name: str) -> list[str]:
    op = REGISTRY.get(TORCH_SPELLINGS[name].op) or COMPOSITES.get(TORCH_SPELLINGS[name].op)
    return [param.name for param in getattr(op, "params", ())] + ["dim", "keepdim", "nope"]


def _command(command: str):
    if command == "check":
        from gradcli.gradcheck import check

        return check
    return getattr(api, command)


def assert_clean(
    program: str,
    shape: tuple[int, ...] = (2, 3),
    const: np.ndarray | None = None,
    command: str = "grad",
    **options,
) -> None:
    """An answer or a GradcliError (the CLI's `error:` line, exit 1); anything else is a bug.
    `command` is grad, jacobian, hessian or check (which share the parser and the engine)."""
    at = {"x": np.linspace(-1, 1, int(np.prod(shape))).reshape(shape)}
    uses_y = re.search(r"\by\b", program) is not None
    try:
        _command(command)(
            program, at, {"y": CONSTS[0] if const is None else const} if uses_y else None, **options
        )
    except GradcliError:
        pass
    except Exception as error:  # noqa: BLE001 - the point of the test
        pytest.fail(f"{command} {program!r} at shape {shape}: internal error {type(error).__name__}: {error}")


@pytest.mark.parametrize("name", NAMES)
def test_every_op_takes_wrong_arguments_cleanly(name: str) -> None:
    for arguments in SWEEP_CALLS:
        assert_clean(f"sum({name}({arguments}))", symbolic=False)
    for arguments in SWEEP_METHODS:
        assert_clean(f"sum(x.{name}({arguments}))", symbolic=False)


@st.composite
def programs(draw) -> tuple[str, tuple[int, ...], np.ndarray, bool]:
    name = draw(st.sampled_from(NAMES))
    args = draw(st.lists(st.sampled_from(("x", "y", *VALUES)), max_size=4))
    keywords = draw(st.lists(st.tuples(st.sampled_from(_params(name)), st.sampled_from(VALUES)), max_size=2))
    text = ", ".join(args + [f"{k}={v}" for k, v in keywords])
    call = draw(
        st.sampled_from(
            (
                f"{name}({text})",
                f"x.{name}({text})",
                f"torch.{name}({text})",
                f"F.{name}({text})",
                f"np.{name}({text})",
            )
        )
    )
    program = draw(st.sampled_from((f"sum({call})", call, f"{call}.sum()", f"sum({call} * x)")))
    command = draw(st.sampled_from(("grad", "grad", "jacobian", "hessian", "check")))
    return program, draw(st.sampled_from(SHAPES)), draw(st.sampled_from(CONSTS)), command, draw(st.booleans())


@settings(
    max_examples=int(os.environ.get("GRADCLI_FUZZ_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(programs())
def test_random_wrong_arguments_end_cleanly(case) -> None:
    program, shape, const, command, symbolic = case
    options = {"symbolic": symbolic} if command in ("grad", "hessian") else {}
    assert_clean(program, shape, const, command, **options)


@pytest.mark.parametrize(
    ("command", "program", "shape"),
    [  # what the long runs found, kept
        ("grad", "sum(reshape(x, len(x) - 1, 0))", (0,)),
        ("grad", "x.moveaxis((-1,), (-1,))", ()),
        ("grad", "sum(relu(nan) * x)", ()),
        ("grad", "sum(stack((10**30,)) * x)", (2, 3)),
        ("grad", "sum(narrow(x, nan, 10**30, length=1))", (2, 3)),
        ("grad", "sum(x.repeat_interleave(0, 10**30))", (2, 3)),
        ("grad", "sum(arange(None) * x)", (3,)),
        ("grad", "sum(np.linspace(False, steps=-0.0) * x)", (0,)),
        ("grad", "sum(linspace(0, None, 3) * x)", (3,)),
        ("check", "sum(asin(inf) * x)", (3,)),
        ("check", "sum(np.arcsin(1e308*10) * x)", (3,)),
    ],
)
def test_what_the_long_runs_found(command: str, program: str, shape: tuple[int, ...]) -> None:
    assert_clean(program, shape, command=command)


def _torch_type_error(call) -> str:
    with pytest.raises(TypeError) as raised:
        call()
    return str(raised.value).splitlines()[0]


def test_the_issues_two_crashes_are_torchs_type_errors(run) -> None:
    x = torch.ones(2, 3)
    for program, theirs in (
        ("sum(x.movedim())", _torch_type_error(lambda: x.movedim())),
        ("sum(x.movedim(0))", _torch_type_error(lambda: x.movedim(0))),
        ("sum(cosine_similarity(x, 0))", _torch_type_error(lambda: torch.cosine_similarity(x, 0))),
        (
            "sum(F.cosine_similarity(1.5, x))",
            _torch_type_error(lambda: torch.nn.functional.cosine_similarity(1.5, x)),
        ),
    ):
        result = run("grad", program, "--at", "x=[[1, 2, 3], [4, 5, 6]]")
        assert result.exit_code == 1 and result.stdout == ""
        (line,) = result.stderr.splitlines()
        assert line.startswith("error: ") and "internal error" not in line
        assert theirs.rstrip(":") in line, (line, theirs)


def test_a_number_where_a_tensor_is_reshaped_is_torchs_type_error() -> None:
    with pytest.raises(GradcliError, match=r"flatten\(\): argument 'input' \(position 1\) must be Tensor"):
        api.grad("sum(flatten(2.5) * x)", {"x": [1.0, 2.0]})
    assert float(api.grad("sum(sin(2.5) * x)", {"x": [1.0, 2.0]}).grads["x"][0]) == float(np.sin(2.5))


def test_sympy_refusing_a_number_leaves_the_op_by_name() -> None:
    # sympy's Max(x, nan) raises; the numbers are unaffected, the form names the op
    result = api.grad("sum(maximum(x, nan))", {"x": [1.0, 2.0]})
    assert result.grad_symbolic["x"] is not None
