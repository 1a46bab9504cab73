"""The "Speak PyTorch" corpus (issue 13), as a ratchet.

Every case's torch snippet must run (the corpus is valid PyTorch). A case gradcli accepts
must agree with torch: value, every leaf's grad (1e-9 in float64) and the output's
grad_fn. A case gradcli refuses must be listed in KNOWN_GAPS with the error it gives
today; when a change makes a listed case run, this test fails until the id is removed,
so the list only ever shrinks and the corpus report stays honest.
"""

from __future__ import annotations

import numpy as np
import pytest
from corpus import CASES, Case, run_gradcli, run_torch, tolerance

from gradcli.errors import GradcliError

pytest.importorskip("torch", reason="torch (the test oracle) is not installed: pip install -e '.[test]'")

# Case id -> gradcli's one-line error for it today (GradcliError.message, without the hint).
KNOWN_GAPS: dict[str, str] = {
    "blitz_nn_relu_linear": "line 1, column 5: 'F.relu' needs no module prefix here",
    "autogradqs_bce_with_logits": "line 1, column 5: 'torch.matmul' needs no module prefix here",
    "autogradqs_detach": "line 1, column 5: 'torch.matmul' needs no module prefix here",
    "pwe_polynomial_autograd": "line 1, column 5: 'torch.sin' needs no module prefix here",
    "pwe_nn_linear_flatten": "line 1, column 6: unknown method '.unsqueeze()'",
    "d2l_autograd_dot": "column 9: 'torch.dot' needs no module prefix here",
    "d2l_autograd_detach": "line 2, column 5: unknown method '.detach()'",
    "d2l_linreg_squared_loss": "line 1, column 9: 'torch.matmul' needs no module prefix here",
    "d2l_weight_decay": "line 1, column 9: 'torch.matmul' needs no module prefix here",
    "d2l_softmax_regression": "line 1, column 5: 'torch.matmul' needs no module prefix here",
    "d2l_ndarray_indexing": "column 2: subscript (indexing) is not allowed in a gradcli program",
    "d2l_pick_probabilities": "column 1: subscript (indexing) is not allowed in a gradcli program",
    "d2l_discuss_neg_log_pick": "column 3: 'np.log' needs no module prefix here",
    "d2l_mlp_relu": "column 5: 'torch.relu' needs no module prefix here",
    "d2l_mlp_sigmoid": "column 5: 'torch.sigmoid' needs no module prefix here",
    "d2l_mlp_scratch": "line 1, column 5: unknown method '.reshape()'",
    "d2l_batch_norm": "line 1, column 1: 'mean' is a built-in name and cannot be assigned",
    "micrograd_readme": "line 3, column 1: augmented assignment (+= and friends) is not allowed; use NAME = EXPR or EXPR",
    "zth_expression_graph": "line 1, column 1: 'e' is a built-in name and cannot be assigned",
    "zth_neuron_torch": "line 2, column 5: 'torch.tanh' needs no module prefix here",
    "zth_neuron_tanh_by_exp": "line 5, column 1: 'e' is a built-in name and cannot be assigned",
    "micrograd_demo_svm_loss": "line 3, column 35: unknown function 'len'",
    "makemore1_bigram_nn": "line 1, column 8: unknown method '.float()'",
    "makemore2_mlp_cross_entropy": "line 1, column 7: subscript (indexing) is not allowed in a gradcli program",
    "makemore2_cat_unbind": "line 1, column 10: 'torch.cat' needs no module prefix here",
    "makemore3_batchnorm": "line 1, column 7: subscript (indexing) is not allowed in a gradcli program",
    "makemore4_exploded_cross_entropy": "line 1, column 15: unknown attribute '.values' (only .T and the methods in 'gradcli ops')",
    "makemore4_exploded_batchnorm": "line 8, column 5: 'torch.tanh' needs no module prefix here",
    "makemore4_cross_entropy_builtin": "column 13: 'F.cross_entropy' needs no module prefix here",
    "makemore5_flatten_consecutive": "line 1, column 1: assign to one plain name, as in y = 2*x",
    "teeny_leaky_relu": "line 1, column 7: unknown method '.leaky_relu()'",
    "teeny_log2": "line 1, column 7: 'torch.log2' needs no module prefix here",
    "teeny_exp2": "line 1, column 7: 'torch.exp2' needs no module prefix here",
    "teeny_rsqrt": "line 1, column 7: 'torch.rsqrt' needs no module prefix here",
    "teeny_elu_alpha": "line 1, column 7: unknown method '.elu()'",
    "teeny_gelu_tanh": "line 1, column 7: unknown method '.gelu()'",
    "teeny_quick_gelu": "line 1, column 11: 'torch.sigmoid' needs no module prefix here",
    "teeny_mish": "line 1, column 11: 'torch.tanh' needs no module prefix here",
    "teeny_relu6": "line 1, column 7: unknown method '.relu6()'",
    "teeny_hardtanh": "line 1, column 7: unknown method '.hardtanh()'",
    "teeny_maximum": "line 1, column 7: 'torch.maximum' needs no module prefix here",
    "teeny_clip": "line 1, column 7: unknown method '.clip()'",
    "teeny_cumsum": "line 1, column 7: 'torch.cumsum' needs no module prefix here",
    "teeny_max_axis": "line 1, column 7: subscript (indexing) is not allowed in a gradcli program",
    "teeny_min": "line 1, column 7: unknown method '.mul()'",
    "teeny_std_correction": "line 1, column 7: 'torch.std' needs no module prefix here",
    "teeny_log_softmax": "line 1, column 7: unknown method '.log_softmax()'",
    "teeny_transpose": "line 1, column 7: unknown method '.transpose()'",
    "teeny_permute": "line 1, column 7: unknown method '.permute()'",
    "teeny_reshape": "line 1, column 7: 'torch.reshape' needs no module prefix here",
    "teeny_flatten": "line 1, column 7: 'torch.flatten' needs no module prefix here",
    "teeny_unsqueeze": "line 1, column 7: 'torch.unsqueeze' needs no module prefix here",
    "teeny_slice": "line 1, column 7: subscript (indexing) is not allowed in a gradcli program",
    "teeny_cat": "line 1, column 7: 'torch.cat' needs no module prefix here",
    "teeny_stack": "line 1, column 7: 'torch.stack' needs no module prefix here",
    "teeny_where": "line 1, column 7: 'torch.where' needs no module prefix here",
    "teeny_matmul_vector": "line 2, column 1: unknown method '.square()'",
    "teeny_binary_crossentropy": "column 1: unknown method '.binary_cross_entropy()'",
    "teeny_binary_crossentropy_logits": "column 1: unknown method '.binary_cross_entropy_with_logits()'",
    "teeny_gather": "line 1, column 7: unknown method '.gather()'",
    "hips_readme_tanh": "column 8: 'np.exp' needs no module prefix here",
    "hips_logistic_regression": "line 1, column 16: 'np.tanh' needs no module prefix here",
    "hips_numpy_max_axis": "column 1: 'np.max' needs no module prefix here",
    "hips_numpy_cumsum_axis": "column 1: 'np.cumsum' needs no module prefix here",
    "hips_numpy_mean_keepdims": "column 1: 'np.mean' needs no module prefix here",
    "hips_index_lists": "column 1: subscript (indexing) is not allowed in a gradcli program",
    "hips_index_ints": "column 1: subscript (indexing) is not allowed in a gradcli program",
    "hips_ode_euler_step": "line 1, column 11: 't' is a function; call it, as in t(x)",
    "hips_nn_predict": "line 1, column 11: 'np.dot' needs no module prefix here",
    "docs_cross_entropy_indices": "column 8: 'F.cross_entropy' needs no module prefix here",
    "docs_cross_entropy_probabilities": "column 8: 'F.cross_entropy' needs no module prefix here",
    "docs_nll_loss": "column 10: 'F.nll_loss' needs no module prefix here",
    "docs_mse_loss": "column 10: 'F.mse_loss' needs no module prefix here",
    "docs_l1_loss": "column 10: 'F.l1_loss' needs no module prefix here",
    "docs_smooth_l1_loss": "column 10: 'F.smooth_l1_loss' needs no module prefix here",
    "docs_huber_loss": "column 10: 'F.huber_loss' needs no module prefix here",
    "docs_binary_cross_entropy": "column 8: 'F.binary_cross_entropy' needs no module prefix here",
    "docs_softmax_dim": "column 1: 'F.softmax' needs no module prefix here",
    "docs_normalize": "column 1: 'F.normalize' needs no module prefix here",
    "docs_linear": "column 1: 'F.linear' needs no module prefix here",
    "docs_one_hot_manual_cross_entropy": "column 10: 'F.one_hot' needs no module prefix here",
    "docs_logsumexp": "column 1: 'torch.logsumexp' needs no module prefix here",
    "docs_clamp": "column 1: 'torch.clamp' needs no module prefix here",
    "docs_where": "column 1: 'torch.where' needs no module prefix here",
    "docs_prod_dim": "column 1: 'torch.prod' needs no module prefix here",
    "docs_var_keepdim": "column 1: 'torch.var' needs no module prefix here",
    "docs_norm": "column 1: 'torch.norm' needs no module prefix here",
    "docs_amax": "column 1: 'torch.amax' needs no module prefix here",
    "docs_max_dim_values": "column 1: unknown attribute '.values' (only .T and the methods in 'gradcli ops')",
    "docs_min_dim_tuple": "column 1: subscript (indexing) is not allowed in a gradcli program",
    "docs_expm1_log1p": "column 1: 'torch.log1p' needs no module prefix here",
    "docs_reciprocal": "column 1: 'torch.reciprocal' needs no module prefix here",
    "docs_erf": "column 1: 'torch.erf' needs no module prefix here",
    "docs_silu_gelu": "column 1: 'F.silu' needs no module prefix here",
    "docs_square_mul_methods": "column 1: unknown method '.mul()'",
    "qa_mse_against_ones_like": "line 1, column 6: 'torch.ones_like' needs no module prefix here",
    "qa_stack_keeps_gradient": "line 1, column 8: 'torch.cos' needs no module prefix here",
    "qa_masked_mse": "line 1, column 8: 'F.mse_loss' needs no module prefix here",
    "qa_boolean_mask_index": "column 8: 'F.mse_loss' needs no module prefix here",
    "qa_mask_where_zeros_like": "line 1, column 12: 'torch.where' needs no module prefix here",
    "qa_clamp_product": "line 1, column 5: 'torch.clamp' needs no module prefix here",
}

OUT_OF_SCOPE = {c.id for c in CASES if c.out_of_scope}


def test_corpus_shape() -> None:
    """At least 60 cases, unique ids, each with a source; the gap list names only real cases."""
    ids = [c.id for c in CASES]
    assert len(ids) >= 60
    assert len(set(ids)) == len(ids)
    assert all(c.source and c.program and c.torch for c in CASES)
    assert set(KNOWN_GAPS) <= set(ids), sorted(set(KNOWN_GAPS) - set(ids))
    assert not set(KNOWN_GAPS) & OUT_OF_SCOPE, "out-of-scope cases are not gaps"
    assert len(OUT_OF_SCOPE) <= len(CASES) // 10, "keep out-of-scope cases few"


def _close(actual: object, expected: object, rtol: float) -> bool:
    a, b = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=rtol * 1e-3, equal_nan=True))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    expected = run_torch(case)  # first: the corpus itself must be valid PyTorch
    try:
        result = run_gradcli(case)
    except GradcliError as exc:
        if case.out_of_scope:
            return
        assert case.id in KNOWN_GAPS, f"gradcli refuses {case.id}: {exc.message}"
        assert exc.message == KNOWN_GAPS[case.id], "the refusal changed: update KNOWN_GAPS"
        return
    assert not case.out_of_scope, f"{case.id} is marked out of scope but runs"
    assert case.id not in KNOWN_GAPS, f"{case.id} runs now: remove it from KNOWN_GAPS"
    rtol = tolerance(case)
    assert _close(result.value, expected.value, rtol), (result.value, expected.value)
    for name in case.at:
        got, want = result.grads[name], expected.grads[name]
        assert (got is None) == (want is None), name
        if want is not None:
            assert _close(got, want, rtol), (name, got, want)
    assert result.output.grad_fn == expected.grad_fn
