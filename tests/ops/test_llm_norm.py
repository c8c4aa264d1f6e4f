"""kiln::rms_norm.out and kiln::fused_add_rms_norm.out against vLLM's RMSNorm written in plain
PyTorch (llm_reference): dtypes, odd hidden sizes, the in-place form, and bad input; then the
Ascend kernels alone (fallback disabled) on both SoC profiles."""

from __future__ import annotations

from typing import Any

import llm_reference as ref
import pytest
import torch
from ascend_checks import SIZES, SOCS, call_ascend, check_declines, float_dtypes, on_soc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llm_checks import LLM_DTYPES, assert_near, randn
from op_compare import assert_same, magnitude, raises, tolerances_for

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


# The Ascend kernels themselves (emulated), fallback disabled, on both SoC profiles. Their rstd
# differs from the reference's in the last float bits (a tree sum), which can flip the rounding of
# x * rstd to a 16-bit dtype by one unit: docs/ascend.md adds eps(dtype) M(out) for that.


def norm_atol(expected: torch.Tensor) -> float:
    return torch.finfo(expected.dtype).eps * magnitude(expected)


def check_ascend_norm(
    x: torch.Tensor, w: torch.Tensor, eps: float, residual: torch.Tensor | None = None
) -> None:
    """rms_norm (or, with a residual, fused_add_rms_norm) on the Ascend kernel equals the
    reference within the Ascend tolerances; a non-empty input launched a kernel."""
    dtype = x.dtype
    if residual is None:
        outs: Any = torch.empty(0, dtype=dtype)
        launches = call_ascend(RMS, x, w, eps, out=outs)
        pairs = [(outs, ref.rms_norm(x, w, eps))]
    else:
        outs = (torch.empty(0, dtype=dtype), torch.empty(0, dtype=dtype))
        launches = call_ascend(FUSED, x, residual, w, eps, out=outs)
        pairs = list(zip(outs, ref.fused_add_rms_norm(x, residual, w, eps), strict=True))
    assert launches or x.numel() == 0, "no Ascend kernel ran"
    for actual, expected in pairs:
        atol = norm_atol(expected)
        assert_same(actual, expected, atol=atol, tolerances=tolerances_for("ascend"))


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("hidden", SIZES[:-1])
def test_ascend_rms_norm_rows(soc: str, hidden: int) -> None:
    # Tails of every length; 100003 is longer than a UB tile and goes in chunks.
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            rows = 3 if hidden < 100_003 else 2
            x = randn(rows, hidden, dtype=dtype, seed=hidden) * 3
            residual = randn(rows, hidden, dtype=dtype, seed=hidden + 1)
            w = randn(hidden, dtype=dtype, seed=hidden + 2)
            check_ascend_norm(x, w, 1e-6)
            check_ascend_norm(x, w, 1e-5, residual)


@pytest.mark.parametrize("soc", SOCS)
def test_ascend_rms_norm_llm_shapes(soc: str) -> None:
    # Hidden 4096 at 16 tokens (a decode batch) and 300 tokens (several tiles per core), and
    # 4099 rows of 257: many UB tiles on every core.
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            for rows, hidden in ((16, 4096), (300, 4096), (4099, 257)):
                x = randn(rows, hidden, dtype=dtype, seed=rows)
                residual = randn(rows, hidden, dtype=dtype, seed=rows + 1)
                w = randn(hidden, dtype=dtype, seed=rows + 2)
                check_ascend_norm(x, w, 1e-6)
                check_ascend_norm(x, w, 1e-6, residual)


def test_ascend_rms_norm_in_place_and_empty() -> None:
    x = randn(5, 4096, dtype=torch.float16, seed=3)
    residual = randn(5, 4096, dtype=torch.float16, seed=4)
    w = randn(4096, dtype=torch.float16, seed=5)
    expected, expected_sum = ref.fused_add_rms_norm(x, residual, w, 1e-5)
    assert call_ascend(FUSED, x, residual, w, 1e-5, out=(x, residual))
    assert_same(x, expected, atol=norm_atol(expected), tolerances=tolerances_for("ascend"))
    assert_same(residual, expected_sum, tolerances=tolerances_for("ascend"))
    check_ascend_norm(torch.randn(0, 64), torch.randn(64), 1e-6)
    check_ascend_norm(torch.randn(2, 0, 64), torch.randn(64), 1e-6, torch.randn(2, 0, 64))


def test_ascend_rms_norm_special_values() -> None:
    # On Ascend910B (IEEE): NaN and inf rows as torch gives them, a sum that overflows half, a
    # zero row (rstd = 1/sqrt(eps)), tiny values.
    inf, nan = float("inf"), float("nan")
    rows = [[6e4, 1.0, 2.0], [nan, 1.0, 2.0], [inf, 1.0, 2.0], [0.0, -0.0, 0.0], [1e-4, -1e-4, 0.0]]
    for dtype in (torch.float16, torch.float32):
        x = torch.tensor(rows, dtype=dtype)
        w = torch.tensor([1.0, 2.0, 3.0], dtype=dtype)
        check_ascend_norm(x, w, 1e-6)
        check_ascend_norm(x, w, 1e-6, torch.tensor([[6e4, 1.0, 2.0]] * 5, dtype=dtype))


def test_ascend_rms_norm_declines_what_it_cannot_take() -> None:
    # Bad input (test_bad_input) is declined too, and the portable kernel's message reports it.
    x = torch.randn(4, 8)
    w = torch.randn(8)
    with on_soc("Ascend310P"):
        check_declines(
            RMS, x.bfloat16(), w.bfloat16(), 1e-6, out=torch.empty(0).bfloat16(), reason="BFloat16"
        )
        residual = x.clone()
        residual[1, 2] = float("inf")
        outs = (torch.empty(0), torch.empty(0))
        reason = "residual holding inf or NaN"
        check_declines(FUSED, x, residual, w, 1e-6, out=outs, reason=reason)
        check_declines(RMS, residual, w, 1e-6, out=torch.empty(0), reason="input holding inf")
