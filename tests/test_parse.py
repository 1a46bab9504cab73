"""The parser: whitelist, positions, caps checked before work, and regressions found by fuzzing."""

from __future__ import annotations

import ast
import builtins
import warnings
from pathlib import Path

import pytest

import gradcli
from gradcli import grad, limits
from gradcli.errors import LimitError, ParseError
from gradcli.graph import InputSpec, build_graph
from gradcli.parse import parse_program
from gradcli.program import Apply, Num, Ref


def test_a_program_parses_to_plain_data() -> None:
    program = parse_program("y = 2*x; z = y^3")
    assert program.inputs == ("x",)
    assert [s.target for s in program.statements] == ["y", "z"]
    power = program.statements[1].expr
    assert isinstance(power, Apply) and power.op == "pow"
    assert power.args[0] == Ref("y", 1, 14) and isinstance(power.args[1], Num)


def test_parsing_never_calls_eval_or_exec(monkeypatch) -> None:
    calls = []
    for name in ("eval", "exec"):
        monkeypatch.setattr(builtins, name, lambda *args, name=name, **kwargs: calls.append(name))
    outcomes = []
    for text in ["__import__('os').system('true')", "x**2 + sin(y)", "eval('1')", "y = x.sum(dim=0)"]:
        try:
            outcomes.append(parse_program(text).inputs)
        except ParseError as exc:
            outcomes.append(type(exc).__name__)
    assert calls == []
    assert outcomes == ["ParseError", ("x", "y"), "ParseError", ("x",)]


def test_no_module_of_gradcli_calls_eval_exec_or_sympify() -> None:
    """A static guard: these names must not appear as calls anywhere in gradcli/, but for the
    one module that runs a `gradcli run --python` script (given on stdin) as python runs it:
    executing that script is its job; a program of `grad` and its siblings is never executed."""
    forbidden = {"eval", "exec", "sympify", "parse_expr", "__import__"}  # also as sp.sympify(...)
    package = Path(gradcli.__file__).parent
    runner = package / "runner.py"
    offenders = []
    executing = []
    for path in sorted(package.rglob("*.py")):
        if path == runner:
            executing = [n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Call)]
            executing = [getattr(n.func, "id", None) for n in executing if getattr(n.func, "id", None) in ("exec", "compile", "eval")]
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                builtin_compile = isinstance(func, ast.Name) and func.id == "compile"  # not re.compile
                if name in forbidden or builtin_compile:
                    offenders.append(f"{path.name}:{node.lineno} {name}")
    assert offenders == []
    assert sorted(executing) == ["compile", "exec"]  # the script from stdin, once


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("x +", 4),
        ("x ^ ^ y", 5),  # `^` becomes `**`: columns still count the text as typed
        ("é + é +", 8),  # characters, not UTF-8 bytes
        ("   x + )", 8),  # leading blanks are kept in the count
    ],
)
def test_error_columns_point_into_the_text_as_typed(text: str, column: int) -> None:
    with pytest.raises(ParseError) as caught:
        parse_program(text)
    assert caught.value.column == column


def test_unknown_name_column_after_caret_and_unicode() -> None:
    with pytest.raises(ParseError) as caught:
        parse_program("é^2 + foo(x)")
    assert caught.value.column == 7 and "unknown function 'foo'" in str(caught.value)


def test_indentation_is_not_an_error() -> None:
    assert parse_program("  y = 2*x\n    y + 1").inputs == ("x",)


def test_statement_count_ignores_comments_blank_lines_and_bracketed_newlines(monkeypatch) -> None:
    monkeypatch.setattr(limits, "MAX_STATEMENTS", 2)
    program = parse_program("# a; b; c\n\ny = (x +\n  1);   \n\n y * 2  # last; one")
    assert len(program.statements) == 2
    with pytest.raises(LimitError, match=r"number of statements \(3\) exceeds the limit MAX_STATEMENTS=2"):
        parse_program("x; x; x")


def test_statement_cap_is_checked_before_pythons_parser(monkeypatch) -> None:
    def no_parse(*args, **kwargs):
        raise AssertionError("ast.parse ran on a program over the statement cap")

    monkeypatch.setattr(ast, "parse", no_parse)
    with pytest.raises(LimitError, match="MAX_STATEMENTS"):
        parse_program("x\n" * (limits.MAX_STATEMENTS + 1))


def test_nesting_cap_names_where_it_was_crossed() -> None:
    text = "y = 1\n" + "(" * 201 + "x" + ")" * 201
    with pytest.raises(LimitError, match=r"line 2, column 201, over the limit MAX_NESTING=200"):
        parse_program(text)
    assert parse_program("(" * 150 + "x" + ")" * 150).inputs == ("x",)


def test_operation_cap_is_checked_before_conversion(monkeypatch) -> None:
    monkeypatch.setattr(limits, "MAX_NODES", 10)
    parse_program("x" + "*x" * 10)
    with pytest.raises(LimitError, match=r"number of operations \(11\) exceeds the limit MAX_NODES=10"):
        parse_program("x" + "*x" * 11)


def test_depth_cap_names_max_depth_for_pythons_parser_limit_too() -> None:
    with pytest.raises(LimitError, match="MAX_DEPTH=1,000"):
        parse_program("x" + "+x" * 1000)
    with pytest.raises(LimitError, match="MAX_DEPTH=1,000"):
        parse_program("-" * 50_000 + "x")  # Python's parser gives up first


def test_huge_integer_literals_are_inf_not_a_crash() -> None:
    """Regression: repr() of a 6,000-digit int raised ValueError (an internal error)."""
    program = parse_program("x * 0x" + "f" * 5000)
    literal = program.statements[0].expr.args[1]
    assert isinstance(literal, Num) and literal.value == float("inf") and literal.text == "inf"


def test_decimal_literal_past_pythons_digit_limit_is_a_syntax_error() -> None:
    with pytest.raises(ParseError, match="syntax error"):
        parse_program("x * 1" + "0" * 5000)


def test_rebinding_a_name_makes_a_new_node_with_a_name_of_its_own() -> None:
    """`x = 2*x` is Python's rebinding: the leaf x stays x, the new tensor is x_2."""
    from gradcli import grad

    result = grad("x = 2*x; x = x + 1; y = x*x", at={"x": 3.0}, symbolic=False)
    assert [n.name for n in result.nodes] == ["x", "x_2", "x_3", "y"]
    assert result.grads["x"] == 2 * 7 * 2


def test_comment_only_program_is_refused() -> None:
    """Regression: a program of comments reached the graph with no output (AssertionError)."""
    with pytest.raises(ParseError, match="only comments"):
        parse_program("# nothing\n# at all")


def test_pythons_parser_warnings_never_escape() -> None:
    """'\\d' makes Python's parser warn (a SyntaxWarning from 3.12); the user sees one error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ParseError, match="string is not a number"):
            parse_program("'\\d'")


def test_dunder_is_named_first_even_inside_other_refusals() -> None:
    with pytest.raises(ParseError, match="'__import__'"):
        parse_program("[__import__('os') for _ in 'a']")


def test_dunder_spelled_in_fullwidth_is_named_first_too() -> None:
    # Python reads identifiers in NFKC form (a fullwidth low line is _), so this is __import__
    # although the text has no "__"; the screen's shortcut (ASCII without "__") must not skip it.
    with pytest.raises(ParseError, match="'__import__'"):
        parse_program("[_\uff3fimport_\uff3f('os') for _ in 'a']")


def test_operation_cap_counts_operations_not_operator_characters(monkeypatch) -> None:
    # Brackets and operators in a comment lift the text's bound over the cap; the walk then counts.
    monkeypatch.setattr(limits, "MAX_NODES", 10)
    assert parse_program("x" + "*x" * 10 + "  # (((+++").inputs == ("x",)


def test_non_text_programs_are_refused() -> None:
    with pytest.raises(ParseError, match="must be text"):
        parse_program(b"x")  # type: ignore[arg-type]


def test_named_constants_fold_to_numbers() -> None:
    """Regression (fuzz): `n0 = 0; n1 = sin(n0); sin(n1/A)` was an internal error in the
    symbolic layer, which met a reference where it expects a number."""
    program = parse_program("n = 2; m = n*3; x**m")
    graph = build_graph(program, {"x": InputSpec("leaf", ())})
    power = graph.nodes[graph.output]
    exponent = power.operands[1]
    assert exponent.value == 6.0 and not isinstance(exponent.expr.args[0], Ref)
    result = grad("n = 2; m = n*3; x**m", at={"x": 1.0})
    assert float(result.grads["x"]) == 6.0
    assert result.grad_symbolic["x"] == "6*x**5"
    result = grad("n0=0; n1=sin(n0); sin(n1/A)", at={"A": 0.5})
    assert float(result.value) == 0.0
