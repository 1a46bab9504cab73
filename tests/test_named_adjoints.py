"""Big programs get per-node adjoints as text (adj_NAME terms): they must mean the numbers shown."""

from __future__ import annotations

import math

import pytest
import sympy as sp
from formula_eval import evaluate

from gradcli import grad, limits
from gradcli.ops import OPS, Op

PROGRAMS = [
    ("y = 2*x; z = y**3; out = z.mean()", {"x": 0.7}),
    ("a = sin(x) * x; b = a / 3 - x**2; c = exp(-b) + 2**x; c * y", {"x": 0.4, "y": 1.3}),
    ("s = sqrt(x) + log1p(x*y) - y/x; u = tanh(s) ^ 2; sigmoid(u) + relu(s) + abs(-s)", {"x": 1.7, "y": 0.6}),
]


@pytest.mark.parametrize(("program", "at"), PROGRAMS)
def test_named_adjoints_evaluate_to_the_numeric_adjoints(monkeypatch, program, at):
    monkeypatch.setattr(limits, "SYMBOLIC_NODES", 0)  # force the named mode on a small program
    result = grad(program, at=at)
    values = {n.name: float(n.value) for n in result.nodes}
    adjoints = {f"adj_{n.name}": float(n.adjoint) for n in result.nodes if n.adjoint is not None}
    for node in result.nodes:
        if node.adjoint is None:
            continue
        text = node.adjoint_symbolic
        assert text is not None and len(text) < 400, node.name
        found = float(evaluate(text, {**values, **adjoints}))  # torch's reading of the text
        assert math.isclose(found, float(node.adjoint), rel_tol=1e-12, abs_tol=1e-12), (node.name, text)
    for node in result.nodes:  # forms are the program's operations, in operand names
        if node.kind == "op":
            value = sp.parse_expr(node.symbolic).subs({sp.Symbol(k): v for k, v in values.items()})
            assert math.isclose(float(value), values[node.name], rel_tol=1e-12), (node.name, node.symbolic)


def test_a_10000_statement_program_gets_named_adjoints_fast_enough():
    program = "\n".join(["t0 = x"] + [f"t{i} = sin(t{i - 1}) + 0.5*x" for i in range(1, 10_001)])
    result = grad(program, at={"x": 0.3})
    by_name = {n.name: n for n in result.nodes}
    assert by_name["t1"].adjoint_symbolic.startswith("adj_")  # in terms of its consumer's adjoint
    assert "cos(t1)" in by_name["t1"].adjoint_symbolic
    assert result.grad_symbolic["x"] is None  # too large in leaf names: null, as SPEC allows


ELEMENTWISE = [op for op in OPS if op.elementwise]


def _sympy_text(expr: sp.Expr, slots: tuple[sp.Symbol, ...]) -> str:
    text = sp.sstr(expr)
    for i, slot in enumerate(slots):
        text = text.replace(slot.name, f"{{{i}}}")
    return text


@pytest.mark.parametrize("op", ELEMENTWISE, ids=lambda op: op.name)
def test_text_templates_are_what_sympy_prints(op: Op):
    # build_named writes big programs' forms from these templates without sympy; they must
    # be byte for byte what sympy prints for the op's form, so that text and sympy modes agree.
    slots = tuple(sp.Symbol(f"SLOT{i}") for i in range(op.arity))
    assert op.text == _sympy_text(op.sympy(sp, *slots), slots)


def test_a_big_program_of_elementwise_ops_never_imports_sympy():
    import subprocess
    import sys

    program = "\n".join(
        ["t0 = x"] + [f"t{i} = sin(t{i - 1}) + 0.5*x" for i in range(1, limits.SYMBOLIC_NODES)]
    )
    code = (
        "import sys; from gradcli import grad; "
        f"r = grad({program!r}, at={{'x': 0.3}}); "
        "assert r.nodes[-1].adjoint_symbolic == '1'; "
        "print('sympy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
