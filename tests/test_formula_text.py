"""The text reading writes Python's precedence right: what it prints parses back to the same tree."""

from __future__ import annotations

import ast

import pytest

from gradcli.formula_text import add, div, mul, name, neg, number, power, spell, sub
from gradcli.ops import REGISTRY

a, b, c = name("a"), name("b"), name("c")


def _same_tree(text: str, expected: str) -> bool:
    return ast.dump(ast.parse(text, mode="eval")) == ast.dump(ast.parse(expected, mode="eval"))


@pytest.mark.parametrize(
    ("built", "expected"),
    [
        (mul(a, spell(REGISTRY["matmul"], [b, c], {})), "a * (b @ c)"),  # not (a*b) @ c
        (sub(a, add(b, c)), "a - (b + c)"),
        (div(a, mul(b, c)), "a / (b * c)"),
        (mul(a, mul(b, c)), "a * b * c"),  # equal in value: no parentheses needed
        (power(add(a, b), number(2)), "(a + b) ** 2"),
        (neg(add(a, b)), "-(a + b)"),
        (add(a, neg(mul(b, c))), "a - b * c"),
        (mul(a, spell(REGISTRY["gt"], [b, number(0)], {})), "a * (b > 0)"),
        (spell(REGISTRY["sum"], [add(a, b)], {"dim": 0, "keepdim": False}), "(a + b).sum(0)"),
    ],
)
def test_precedence(built, expected):
    assert _same_tree(built.text, expected) or built.text == expected, built.text


def test_numbers_fold_where_a_rule_multiplies_by_one_or_zero():
    assert mul(number(1), a).text == "a" and mul(a, number(0)).text == "0"
    assert power(a, number(1)).text == "a" and add(a, number(-2)).text == "a - 2"
