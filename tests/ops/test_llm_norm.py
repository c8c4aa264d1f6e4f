"""kiln::rms_norm.out and kiln::fused_add_rms_norm.out against vLLM's RMSNorm written in plain
PyTorch (llm_reference): dtypes, odd hidden sizes, the in-place form, and bad input."""

from __future__ import annotations

from typing import Any

import llm_reference as ref
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llm_checks import LLM_DTYPES, assert_near, randn
from op_compare import raises

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RMS = "kiln::rms_norm.out"
FUSED = "kiln::fused_add_rms_norm.out"


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize("shape", [(7, 4096), (3, 5, 80), (1, 1), (2, 300), (0, 64)])
def test_rms_norm_matches_reference(call_op: Any, dtype: torch.dtype, shape: tuple) -> None:
    x = randn(*shape, dtype=dtype, seed=1) * 3
    w = randn(shape[-1], dtype=dtype, seed=2)
    out = call_op(RMS, x, w, 1e-6, out=torch.empty(0, dtype=dtype))
    assert_near(out, ref.rms_norm(x, w, 1e-6))


@SETTINGS
@given(
    rows=st.integers(0, 6),
    hidden=st.integers(1, 700),
    dtype=st.sampled_from(LLM_DTYPES),
    eps=st.sampled_from([1e-6, 1e-5, 0.1]),
    seed=st.integers(0, 2**16),
)
def test_fused_add_rms_norm_matches_reference(
    call_op: Any, rows: int, hidden: int, dtype: torch.dtype, eps: float, seed: int
) -> None:
    x = randn(rows, hidden, dtype=dtype, seed=seed)
    residual = randn(rows, hidden, dtype=dtype, seed=seed + 1)
    w = randn(hidden, dtype=dtype, seed=seed + 2)
    outs = (torch.empty(0, dtype=dtype), torch.empty(0, dtype=dtype))
    out, residual_out = call_op(FUSED, x, residual, w, eps, out=outs)
    expected, expected_sum = ref.fused_add_rms_norm(x, residual, w, eps)
    assert_near(residual_out, expected_sum)
    assert_near(out, expected)


@pytest.mark.parametrize("dtype", LLM_DTYPES)
def test_fused_add_rms_norm_in_place(call_op: Any, dtype: torch.dtype) -> None:
    # vLLM's form: input becomes the normalised value, residual the sum.
    x = randn(5, 128, dtype=dtype, seed=3)
    residual = randn(5, 128, dtype=dtype, seed=4)
    w = randn(128, dtype=dtype, seed=5)
    expected, expected_sum = ref.fused_add_rms_norm(x, residual, w, 1e-5)
    call_op(FUSED, x, residual, w, 1e-5, out=(x, residual))
    assert_near(x, expected)
    assert_near(residual, expected_sum)


def test_bad_input(call_op: Any) -> None:
    x = torch.randn(4, 8)
    with raises(call_op, "weight has shape"):
        call_op(RMS, x, torch.randn(7), 1e-6, out=torch.empty(0))
    with raises(call_op, "weight has dtype"):
        call_op(RMS, x, torch.randn(8).half(), 1e-6, out=torch.empty(0))
    with raises(call_op, "pass a Float, Half or BFloat16"):
        call_op(RMS, x.double(), torch.randn(8).double(), 1e-6, out=torch.empty(0).double())
    with raises(call_op, "0-dim"):
        call_op(RMS, torch.tensor(1.0), torch.randn(1), 1e-6, out=torch.empty(0))
    with raises(call_op, "out tensor to have dtype"):
        call_op(RMS, x, torch.randn(8), 1e-6, out=torch.empty(0).half())
    outs = (torch.empty(0), torch.empty(0))
    with raises(call_op, "residual has shape"):
        call_op(FUSED, x, torch.randn(4, 9), torch.randn(8), 1e-6, out=outs)
    with raises(call_op, "residual has dtype"):
        call_op(FUSED, x, torch.randn(4, 8).half(), torch.randn(8), 1e-6, out=outs)
