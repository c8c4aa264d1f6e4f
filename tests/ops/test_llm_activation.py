"""kiln::silu_and_mul.out and kiln::gelu_and_mul.out (SwiGLU / GeGLU gates) against vLLM's
native code written in plain PyTorch (llm_reference): dtypes, odd sizes, both gelu forms, and bad
input."""

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
SILU = "kiln::silu_and_mul.out"
GELU = "kiln::gelu_and_mul.out"


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize("shape", [(4, 2 * 11008), (3, 2, 2 * 80), (1, 2), (0, 8), (5, 602)])
def test_silu_and_mul_matches_reference(call_op: Any, dtype: torch.dtype, shape: tuple) -> None:
    x = randn(*shape, dtype=dtype, seed=1) * 4
    out = call_op(SILU, x, out=torch.empty(0, dtype=dtype))
    assert_near(out, ref.silu_and_mul(x))


@SETTINGS
@given(
    rows=st.integers(0, 5),
    d=st.integers(0, 600),
    dtype=st.sampled_from(LLM_DTYPES),
    approximate=st.sampled_from(["none", "tanh"]),
    seed=st.integers(0, 2**16),
)
def test_gelu_and_mul_matches_reference(
    call_op: Any, rows: int, d: int, dtype: torch.dtype, approximate: str, seed: int
) -> None:
    x = randn(rows, 2 * d, dtype=dtype, seed=seed) * 4
    out = call_op(GELU, x, approximate, out=torch.empty(0, dtype=dtype))
    assert_near(out, ref.gelu_and_mul(x, approximate, torch.float64))


def test_gelu_and_mul_default_is_exact(call_op: Any) -> None:
    x = randn(3, 64, seed=7) * 3
    assert_near(call_op(GELU, x, out=torch.empty(0)), ref.gelu_and_mul(x, "none", torch.float64))


def test_bad_input(call_op: Any) -> None:
    with raises(call_op, "last dim of even size"):
        call_op(SILU, torch.randn(3, 5), out=torch.empty(0))
    with raises(call_op, "0-dim|even size"):
        call_op(SILU, torch.tensor(1.0), out=torch.empty(0))
    with raises(call_op, "pass a Float, Half or BFloat16"):
        call_op(SILU, torch.ones(2, 4, dtype=torch.int32), out=torch.empty(0, dtype=torch.int32))
    with raises(call_op, "out tensor to have dtype"):
        call_op(SILU, torch.randn(2, 4), out=torch.empty(0, dtype=torch.float16))
    with raises(call_op, "approximate must be"):
        call_op(GELU, torch.randn(2, 4), "erf", out=torch.empty(0))
