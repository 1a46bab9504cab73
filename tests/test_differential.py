"""Differential tests: random gradcli programs against PyTorch 2.13, node for node.

Every generated program (tests/strategies.py) runs twice, in gradcli and in torch
through tests/oracle.py, and must agree on the output value, every node's value,
grad_fn name and adjoint, and every leaf's .grad: to rtol 1e-9 in float64 and to
float32 precision with dtype float32. Random sequences of backward passes must give
the same .grad after every pass and the same errors, in PyTorch's words.

The example budget is shared across the tests here and in test_symbolic.py; set
GRADCLI_DEEP_EXAMPLES=20000 for a deep run.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import close, run_torch, torch, torch_passes
from strategies import GeneratedProgram, examples, programs, upstream_gradient

from gradcli import grad
from gradcli.errors import GradcliError

# Tensor.T on 0-D/1-D tensors is deprecated in torch; gradcli accepts it as PyTorch does.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
FLOAT32 = {"rtol": 1e-4, "atol": 1e-5, "normwise": True}


def _seed_for(program: GeneratedProgram, draw_gradient) -> np.ndarray | None:
    """The upstream gradient a PyTorch user must pass: none for a scalar output."""
    return None if program.scalar_output else draw_gradient(program.output_shape)


def assert_matches_torch(program: GeneratedProgram, gradient, dtype: str, tol: dict) -> None:
    """Output, every node (value, grad_fn, adjoint) and every leaf grad equal torch's."""
    result = grad(
        program.source, at=program.at, const=program.const, gradient=gradient, dtype=dtype, symbolic=False
    )
    torch_dtype = torch.float64 if dtype == "float64" else torch.float32
    run = run_torch(program.source, program.at, program.const, dtype=torch_dtype)
    run.retain_all_grads()
    seed = None if gradient is None else torch.tensor(np.asarray(gradient), dtype=torch_dtype)
    run.output.backward(seed)

    assert len(result.nodes) == len(run.nodes), [n.name for n in result.nodes]
    for mine, theirs in zip(result.nodes, run.nodes):
        where = f"node {mine.name} ({mine.op})"
        assert mine.kind == theirs.kind and mine.op == theirs.op, where
        if theirs.name is not None:
            assert mine.name == theirs.name, where
        tensor = theirs.tensor
        expected_fn = None if tensor.grad_fn is None else tensor.grad_fn.name()
        assert mine.grad_fn == expected_fn, where
        assert mine.requires_grad == tensor.requires_grad, where
        assert mine.shape == tuple(tensor.shape), where
        assert mine.value.dtype == np.dtype(dtype), where
        assert close(mine.value, tensor.detach().numpy(), **tol), (where, mine.value, tensor)
        if mine.kind == "op":
            their_adjoint = None if tensor.grad is None else tensor.grad.numpy()
            if their_adjoint is None:
                assert mine.adjoint is None, where
            else:
                assert close(mine.adjoint, their_adjoint, **tol), (where, mine.adjoint, their_adjoint)
    # The output is the same node in both (it may be an input itself: `out = x`).
    assert run.nodes[result.output_index].tensor is run.output
    assert close(result.value, run.output.detach().numpy(), **tol)
    for name, leaf in run.leaves.items():
        want = None if leaf.grad is None else leaf.grad.numpy()
        got = result.grads[name]
        if want is None:
            assert got is None, name
        else:
            assert got.dtype == np.dtype(dtype), name
            assert close(got, want, **tol), (name, got, want)


@settings(max_examples=examples(0.45), **SETTINGS)
@given(program=programs(), data=st.data())
def test_random_program_agrees_with_torch_in_float64(program: GeneratedProgram, data) -> None:
    gradient = _seed_for(program, lambda shape: data.draw(upstream_gradient(shape)))
    assert_matches_torch(program, gradient, "float64", {"rtol": 1e-9, "atol": 1e-12})


@settings(max_examples=examples(0.15), **SETTINGS)
@given(program=programs(), data=st.data())
def test_random_program_agrees_with_torch_in_float32(program: GeneratedProgram, data) -> None:
    gradient = _seed_for(program, lambda shape: data.draw(upstream_gradient(shape)))
    assert_matches_torch(program, gradient, "float32", FLOAT32)


# ------------------------------------------------------------------ passes and errors


@st.composite
def pass_plans(draw) -> tuple[GeneratedProgram, list, bool, bool]:
    """A program and 1-4 upstream gradients: none, right-shaped or (rarely) wrong-shaped.

    Now and then every input is a const, so that "nothing requires grad" meets the other
    errors and PyTorch's order among them is checked too.
    """
    program = draw(programs(max_statements=2, max_depth=2))
    if draw(st.integers(0, 7)) == 0:  # every input a const: nothing requires grad
        program = replace(program, at={}, const={**program.at, **program.const})
    count = draw(st.integers(1, 4))
    style = draw(st.sampled_from(["implicit", "explicit", "explicit", "wrong shape"]))
    shape = program.output_shape
    if style == "implicit":
        gradients = [None] * count
    else:
        gradients = [draw(upstream_gradient(shape)) for _ in range(count)]
        if style == "wrong shape":
            bad = draw(st.sampled_from([s for s in ((), (3,), (2, 2), (1,)) if s != shape]))
            gradients[draw(st.integers(0, count - 1))] = draw(upstream_gradient(bad))
    return program, gradients, draw(st.booleans()), draw(st.booleans())


def run_gradcli_passes(program: GeneratedProgram, gradients: list, retain_graph: bool, zero_grad: bool):
    """gradcli's result, or the error it raised."""
    kwargs = {"passes": len(gradients)} if gradients[0] is None else {"gradients": gradients}
    return grad(
        program.source,
        at=program.at,
        const=program.const,
        retain_graph=retain_graph,
        zero_grad=zero_grad,
        symbolic=False,
        **kwargs,
    )


@settings(max_examples=examples(0.2), **SETTINGS)
@given(plan=pass_plans())
def test_random_passes_accumulate_and_fail_like_torch(plan) -> None:
    program, gradients, retain_graph, zero_grad = plan
    want = torch_passes(program.source, program.at, program.const, gradients, retain_graph, zero_grad)
    try:
        result = run_gradcli_passes(program, gradients, retain_graph, zero_grad)
    except GradcliError as error:
        assert want.error is not None, f"gradcli failed, torch did not: {error.message}"
        assert want.error in error.message, (error.message, want.error)
        return
    assert want.error is None, f"torch failed, gradcli did not: {want.error}"
    assert len(result.passes) == len(want.grads)
    for record, expected in zip(result.passes, want.grads):
        for name, value in expected.items():
            if value is None:
                assert record.grads[name] is None
            else:
                assert close(record.grads[name], value), (record.index, name, record.grads[name], value)


def test_nothing_requires_grad_fails_with_torchs_words() -> None:
    """Only consts: torch's engine refuses, with the words gradcli must repeat."""
    want = torch_passes("sin(c) * 2", {}, {"c": 1.0}, [None])
    with pytest.raises(GradcliError) as error:
        grad("sin(c) * 2", const={"c": 1.0})
    assert want.error and want.error in error.value.message
