"""`--format latex`: LaTeX of the symbolic results, structurally sound, read without eval."""

from __future__ import annotations

import re

import pytest
import sympy as sp
from golden import assert_golden
from op_cases import example
from seed_programs import LINEAR
from test_table import LOGISTIC, MLP, SOFTMAX_CE

from gradcli import grad
from gradcli.errors import GradcliError
from gradcli.ops import OPS
from gradcli.render.latex import (
    _SYMPY_FUNCTIONS,
    derivative_latex,
    expression_latex,
    parse_symbolic,
    render,
    value_latex,
)
from gradcli.symbolic import parse_names, sstr


def assert_balanced(latex: str) -> None:
    """Braces, \\left/\\right and environments pair up; no double superscripts."""
    depth = 0
    for char in latex.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0, f"unbalanced braces in {latex}"
    assert depth == 0, f"unbalanced braces in {latex}"
    assert len(re.findall(r"\\left\b", latex)) == len(re.findall(r"\\right\b", latex)), latex
    environments: list[str] = []
    for kind, name in re.findall(r"\\(begin|end)\{(\w+\*?)\}", latex):
        if kind == "begin":
            environments.append(name)
        else:
            assert environments and environments.pop() == name, f"\\end{{{name}}} does not close: {latex}"
    assert not environments, f"unclosed environments {environments}"
    # x^{a}^{b} is a LaTeX error ("double superscript")
    assert not re.search(r"\^\{[^{}]*\}\^", latex), latex
    assert "NaN" not in latex.replace(r"\mathrm{NaN}", "")


def test_cube_symbolic_and_at_a_point_are_pinned(run):
    symbolic = run("grad", "(2*x)**3", "--format", "latex")
    assert symbolic.exit_code == 0, symbolic.stderr
    assert_golden("latex_cube.tex", symbolic.stdout)
    numeric = run("grad", "(2*x)**3", "--at", "x=2", "--format", "latex")
    assert r"\frac{\partial t_{2}}{\partial x} &= 24 x^{2} = 96" in numeric.stdout


def test_linear_layer_is_pinned(run):
    result = run("grad", *LINEAR, "--format", "latex")
    assert result.exit_code == 0, result.stderr
    assert_balanced(result.stdout)
    assert_golden("latex_linear.tex", result.stdout)


TEACHING = {"network": MLP, "logistic": LOGISTIC, "softmax_ce": SOFTMAX_CE}


@pytest.mark.parametrize("name", sorted(TEACHING))
def test_teaching_programs_read_in_the_tables_words(run, name):
    result = run("grad", *TEACHING[name], "--format", "latex")
    assert result.exit_code == 0, result.stderr
    assert_balanced(result.stdout)
    assert not re.search(r"Piecewise|Heaviside|\\max|sum_over|matmul", result.stdout)
    assert_golden(f"latex_{name}.tex", result.stdout)


def test_the_network_reads_as_the_table_does(run):
    out = run("grad", *MLP, "--format", "latex").stdout
    assert r"h &= \operatorname{relu}\left(t_{2}\right)" in out
    assert r"\frac{\partial \mathrm{loss}}{\partial W_{1}} &= X^\top \mathrm{adj}_{t2}" in out
    assert r"\left[h > 0\right]" in out  # relu's rule as an indicator


def test_a_standalone_document_compiles_as_it_stands(run):
    block = run("grad", *MLP, "--format", "latex").stdout
    whole = run("grad", *MLP, "--format", "latex-document").stdout
    assert whole.startswith("\\documentclass{article}\n")
    assert block.strip() in whole
    assert whole.rstrip().endswith("\\end{document}")
    assert_balanced(whole)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_every_op_gives_balanced_latex(op):
    program, at, const = example(op.name)  # the op's first case in tests/op_cases, as a program
    result = grad(program, at=at, const=const)
    latex = render(result)
    assert_balanced(latex)
    assert latex.count(r"\frac{\partial") == len(at)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_symbolic_text_reads_back_to_the_same_expression(op):
    program, at, const = example(op.name)
    result = grad(program, at=at, const=const)
    for text in [*result.grad_symbolic.values(), *(n.symbolic for n in result.nodes)]:
        if text is None:
            continue
        names = [n.name for n in result.nodes]
        expr = parse_symbolic(text, names)
        # sympy's own reader (test-only) sees the same expression: nothing lost or misread
        calls = {
            name: sp.Function(name) for name in re.findall(r"(\w+)\(", text) if name not in _SYMPY_FUNCTIONS
        }
        local = {name: sp.Symbol(name, real=True) for name in names} | calls | parse_names()
        assert sstr(expr) == sstr(sp.parse_expr(text, local_dict=local)), text


@pytest.mark.parametrize(
    "text", ["__import__('os')", "x.real", "x[0]", "lambda: 1", "'a'", "f(x=1)", "x if y else z"]
)
def test_symbolic_reader_refuses_anything_but_formulas(text):
    with pytest.raises(GradcliError):
        parse_symbolic(text)


def test_names_win_over_sympy_constants():
    assert parse_symbolic("E + x") == sp.E + sp.Symbol("x", real=True)
    assert parse_symbolic("E + x", names=["E", "x"]) == sp.Symbol("E", real=True) + sp.Symbol("x", real=True)


def test_reusable_helpers_for_jacobian_and_hessian():
    assert derivative_latex("f", "x") == r"\frac{\partial f}{\partial x}"
    assert derivative_latex("f", "x", "y") == r"\frac{\partial^{2} f}{\partial x \partial y}"
    assert expression_latex("matmul(t(X), 2*y)") == r"X^{T} \left(2 y\right)"
    assert expression_latex(None) == r"\text{(too large to print)}"
    assert value_latex(None) is None
    assert value_latex(float("inf")) == r"\infty"
    assert value_latex([[1, 2], [3, 4]]) == r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}"


def test_latex_needs_symbolic_forms(run):
    result = run("grad", "(2*x)**3", "--at", "x=2", "--format", "latex", "--no-symbolic")
    assert result.exit_code == 1
    assert result.stderr.startswith("error:") and "--no-symbolic" in result.stderr


@pytest.mark.parametrize(
    "bad", ["{x", "x}", r"\left( x", r"\begin{align*} x", r"\begin{a} \begin{b} \end{a} \end{b}", "x^{T}^{T}"]
)
def test_the_structure_check_catches_broken_latex(bad):
    with pytest.raises(AssertionError):
        assert_balanced(bad)


def test_order_n_prints_the_nth_derivative(run):
    result = run("grad", "sin(x)", "--at", "x=0.5", "--order", "2", "--format", "latex")
    assert result.exit_code == 0, result.stderr
    assert (
        r"\frac{\partial^{2} t_{1}}{\partial x^{2}} &= -\sin\left(x\right) = -0.479426" in result.stdout
    )
    assert derivative_latex("f", "x", "x", "y") == r"\frac{\partial^{3} f}{\partial x^{2} \partial y}"


def test_a_word_is_upright_a_letter_italic_and_digits_a_subscript():
    # `loss` set in italics reads as the product l*o*s*s; textbooks set named quantities upright
    assert expression_latex("2*loss*W1 + alpha*t2") == r"2 W_{1} \mathrm{loss} + \alpha t_{2}"
    assert derivative_latex("loss", "W1") == r"\frac{\partial \mathrm{loss}}{\partial W_{1}}"
