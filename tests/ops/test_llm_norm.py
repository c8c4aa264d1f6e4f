"""kiln::rms_norm.out and kiln::fused_add_rms_norm.out against vLLM's RMSNorm written in plain
PyTorch (llm_reference): dtypes, odd hidden sizes, the in-place form, and bad input; then the
Ascend kernels alone (fallback disabled) on both SoC profiles, row views included."""

from __future__ import annotations

from typing import Any

import llm_reference as ref
import pytest
import torch
from ascend_checks import (
    SIZES,
    SOCS,
    assert_only_rows_written,
    buffer_of,
    call_ascend,
    call_ascend_served,
    check_declines,
    float_dtypes,
    laid_out_as,
    on_soc,
    rows_of,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llm_checks import LLM_DTYPES, assert_near, randn
from op_compare import assert_same, magnitude, raises, tolerances_for

import kiln

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


# Row views (issue #37): vLLM normalizes views such as q, k, v = qkv.split(...), or q as [tokens,
# heads, head_size] (a per-head norm), and writes into them. The Ascend kernels read and write
# them where they lie, with no fallback: each result matches the reference, and bit for bit the
# same call on dense copies, and an out view changes nothing between its rows.


def norm_views(dtype: torch.dtype) -> list[tuple[str, torch.Tensor]]:
    qkv = randn(300, 4096 + 2 * 1024, dtype=dtype, seed=1)
    q, k, _ = torch.split(qkv, [4096, 1024, 1024], dim=-1)
    return [
        ("q of qkv, many tiles", q),
        ("k of qkv", k[:7]),
        ("per-head q", q[:5].view(5, 32, 128)),
        ("x[:, :37], rows not whole blocks", rows_of(6, 37, 64, 0, dtype, seed=2)),
        ("stride not whole blocks", rows_of(6, 40, 45, 3, dtype, seed=3)),
        ("one row", rows_of(1, 33, 100, 5, dtype, seed=4)),
        ("rows in chunks", rows_of(2, 100_000, 100_032, 16, dtype, seed=5)),
        ("rows far apart", rows_of(3, 64, 600_000, 0, dtype, seed=6)),
    ]


def check_norm_view(x: torch.Tensor, fused: bool) -> None:
    """rms_norm (fused_add_rms_norm when `fused`, residual and outs row views too) of view `x`
    on the Ascend kernel: into out views of x's layout, then in place."""
    dtype = x.dtype
    w = randn(x.shape[-1], dtype=dtype, seed=7)
    residual = laid_out_as(x, seed=8)
    expected: tuple[torch.Tensor, ...]
    dense: tuple[torch.Tensor, ...] = (torch.empty(0, dtype=dtype), torch.empty(0, dtype=dtype))
    outs: tuple[torch.Tensor, ...] = (laid_out_as(x, seed=9), laid_out_as(x, seed=10))
    if fused:
        expected = ref.fused_add_rms_norm(x, residual, w, 1e-6)
        call_ascend(FUSED, x.contiguous(), residual.contiguous(), w, 1e-6, out=dense)
    else:
        expected = (ref.rms_norm(x, w, 1e-6),)
        dense, outs = dense[:1], outs[:1]
        call_ascend(RMS, x.contiguous(), w, 1e-6, out=dense[0])
    before = [buffer_of(out).clone() for out in outs]
    if fused:
        assert call_ascend_served(FUSED, x, residual, w, 1e-6, out=outs)
    else:
        assert call_ascend_served(RMS, x, w, 1e-6, out=outs[0])
    for out, want, same, buffer in zip(outs, expected, dense, before, strict=True):
        assert_same(out, want, atol=norm_atol(want), tolerances=tolerances_for("ascend"))
        assert torch.equal(out, same), "a row view computes otherwise than its dense copy"
        assert_only_rows_written(out, buffer)
    # vLLM's in-place form: input and residual become the outs.
    x_in_place, r_in_place = laid_out_as(x, seed=11), laid_out_as(x, seed=12)
    x_in_place.copy_(x)
    r_in_place.copy_(residual)
    if fused:
        assert call_ascend_served(
            FUSED, x_in_place, r_in_place, w, 1e-6, out=(x_in_place, r_in_place)
        )
        assert torch.equal(x_in_place, dense[0]) and torch.equal(r_in_place, dense[1])
    else:
        assert call_ascend_served(RMS, x_in_place, w, 1e-6, out=x_in_place)
        assert torch.equal(x_in_place, dense[0])


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("fused", [False, True])
def test_ascend_rms_norm_row_views(soc: str, fused: bool) -> None:
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            for name, x in norm_views(dtype):
                try:
                    check_norm_view(x, fused)
                except AssertionError as error:
                    raise AssertionError(f"{name}, {dtype}: {error}") from error


def test_ascend_rms_norm_row_views_it_cannot_take() -> None:
    # Rows not whole blocks several to a dim-0 row (a per-head view of 10-element heads) have no
    # layout a strided DataCopy reads in place: the portable kernel serves them.
    x = rows_of(4, 30, 40, 0, torch.float32, seed=1).view(4, 3, 10)
    w = randn(10, seed=2)
    reason = "input with rows of 10 elements 3 to a dim-0 row 40 apart"
    check_declines(RMS, x, w, 1e-6, out=torch.empty(0), reason=reason)
    # Nor do input rows that overlap (a stride shorter than a row).
    x = randn(20, seed=4).as_strided((4, 8), (4, 1))
    check_declines(RMS, x, randn(8), 1e-6, out=torch.empty(0), reason="input whose rows overlap")
    # An out whose rows overlap is refused, as the portable kernel refuses it.
    out = torch.zeros(20).as_strided((4, 8), (4, 1))
    x = randn(4, 8, seed=3)
    with pytest.raises(kiln.KilnError, match="rows overlap"):
        kiln.call_op(RMS, x, randn(8), 1e-6, out=out, backend="ascend")
    assert not out.any()
