"""Cases for tests/test_ops.py: the operands each registry op is tried on.

A family of ops keeps its cases in a module of its own here (`CASES = [...]`); every
module of this folder is collected, so adding a family touches no shared test file.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gradcli.ops import NUMBER, TENSOR

RNG = np.random.default_rng(20261122)


def uniform(low: float, high: float, shape: tuple[int, ...]) -> np.ndarray:
    return RNG.uniform(low, high, shape)


def away_from_zero(shape: tuple[int, ...]) -> np.ndarray:
    """Values with |v| in [0.3, 2]: the kinks of relu and abs stay out of finite differences."""
    return RNG.uniform(0.3, 2.0, shape) * RNG.choice([-1.0, 1.0], shape)


@dataclass(frozen=True)
class Case:
    op: str
    label: str
    operands: tuple[np.ndarray | float, ...]  # a float is a Python number operand
    attrs: dict = field(default_factory=dict)
    integers: tuple[int, ...] = ()  # operand positions holding class or index integers (no grad)
    masks: tuple[int, ...] = ()  # operand positions holding a bool mask (0/1 here, bool in torch)

    @property
    def kinds(self) -> list[str]:
        return [NUMBER if isinstance(o, float) else TENSOR for o in self.operands]

    @property
    def shapes(self) -> list[tuple[int, ...]]:
        return [() if isinstance(o, float) else o.shape for o in self.operands]

    def __str__(self) -> str:
        return f"{self.op}-{self.label}"


def _family_cases() -> list[Case]:
    cases: list[Case] = []
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        cases += importlib.import_module(f"{__name__}.{module.name}").CASES
    return cases


FAMILY_CASES = _family_cases()


# Operand names in examples; torch.cat([...]) takes up to 8 ('e' is left out: it reads as a constant).
_NAMES = "abcdfghk"


def example(op_name: str) -> tuple[str, dict, dict]:
    """A program using the op as its first case does, with the case's operands as inputs:
    (program, at, const). Tensor operands are leaves a, b, c, ...; integer operands consts;
    Python numbers stay numbers. The output is summed to a scalar."""
    from gradcli.local_steps import written_form
    from gradcli.ops import REGISTRY

    case = first_case(op_name)
    names, at, const = [], {}, {}
    for position, operand in enumerate(case.operands):
        if isinstance(operand, float):
            names.append(repr(operand))
            continue
        name = _NAMES[position]
        names.append(name)
        constant = position in case.integers or position in case.masks
        value = np.asarray(operand)
        if position in case.integers or position in case.masks:  # int64 and bool, as torch holds them
            value = value.astype(np.int64) if position in case.integers else value != 0
        (const if constant else at)[name] = value.tolist()
    op = REGISTRY[op_name]
    program = written_form(op, names, dict(case.attrs))
    if op.grad_fn == "NotImplemented":  # backward would raise: constant operands, weighing a leaf
        const, at = {**const, **at}, {"w": 1.5}
        return f"sum(sum(w) * sum({program}))", at, const
    if not op.differentiable:  # no gradient of its own: weigh a leaf with it
        if not at:  # a constructor: no operands at all
            at["a"] = 1.5
        program = f"sum({next(iter(at))}) * sum({program})"
    return f"sum({program})", at, const


class MissingCase(LookupError):
    """A registry op no test case exercises."""


def first_case(op_name: str) -> Case:
    for case in _ALL_CASES():
        if case.op == op_name:
            return case
    raise MissingCase(missing_case_message(op_name))


# Families whose cases live in tests/test_ops.py (_unary_cases, _binary_cases, _tensor_cases).
_SHARED_FAMILIES = ("arithmetic", "elementwise", "reductions", "layout")


def family_of(op_name: str) -> str | None:
    """The gradcli/ops/ module whose OPS (or KERNELS, INTERNAL) holds the op's record."""
    import gradcli.ops

    for module in pkgutil.iter_modules(gradcli.ops.__path__):
        family = importlib.import_module(f"gradcli.ops.{module.name}")
        records = (*getattr(family, "OPS", ()), *getattr(family, "KERNELS", ()), *getattr(family, "INTERNAL", ()))
        if any(getattr(op, "name", None) == op_name for op in records):
            return module.name
    return None


def missing_case_message(op_name: str) -> str:
    """What to do about an op without a test case: which file to add its Case to."""
    family = family_of(op_name)
    defined = f" (defined in gradcli/ops/{family}.py)" if family else ""
    if family in _SHARED_FAMILIES:
        where = "to the cases in tests/test_ops.py (_unary_cases, _binary_cases or _tensor_cases)"
    elif family and (Path(__file__).parent / f"{family}.py").exists():
        where = f"to CASES in tests/op_cases/{family}.py"
    else:
        where = f"to CASES in a new tests/op_cases/{family or '<family>'}.py (every module there is collected)"
    return (
        f"the op {op_name!r}{defined} has no test case: add Case({op_name!r}, \"<label>\", (<operands>,)) {where}; "
        "test_ops.py checks its forward, VJP and grad_fn against torch, and other tests build their example "
        "program from its first case"
    )


def _ALL_CASES() -> list[Case]:
    import test_ops  # the shared cases (arithmetic, elementwise, reductions, layout) live there

    return test_ops.CASES
