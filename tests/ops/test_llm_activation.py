"""kiln::silu_and_mul.out and kiln::gelu_and_mul.out (SwiGLU / GeGLU gates) against vLLM's
native code written in plain PyTorch (llm_reference): dtypes, odd sizes, both gelu forms, and bad
input; then the Ascend kernels alone (fallback disabled) on both SoC profiles, row views
included."""

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


# The Ascend kernels themselves (emulated), fallback disabled, on both SoC profiles. The
# activation rounds to the dtype before the product (as vLLM); the kernel's float activation can
# differ from the reference's in the last bits and flip that rounding by one unit: docs/ascend.md
# adds eps(dtype) M(out) for that.
GATES = ((SILU, ()), (GELU, ("none",)), (GELU, ("tanh",)))


def reference(name: str, x: torch.Tensor, approximate: tuple[str, ...]) -> torch.Tensor:
    if name == SILU:
        return ref.silu_and_mul(x)
    return ref.gelu_and_mul(x, approximate[0], torch.float64)


def check_ascend_gates(x: torch.Tensor) -> None:
    for name, approximate in GATES:
        expected = reference(name, x, approximate)
        out = torch.empty(0, dtype=x.dtype)
        launches = call_ascend(name, x, *approximate, out=out)
        assert launches or expected.numel() == 0, f"{name} ran no Ascend kernel"
        atol = torch.finfo(x.dtype).eps * magnitude(expected)
        assert_same(out, expected, atol=atol, tolerances=tolerances_for("ascend"))


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("d", SIZES[:-1])
def test_ascend_gates_rows(soc: str, d: int) -> None:
    # Tails of every length; 100003 is longer than a UB tile and goes in chunks.
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            rows = 3 if d < 100_003 else 2
            check_ascend_gates(randn(rows, 2 * d, dtype=dtype, seed=d) * 4)


@pytest.mark.parametrize("soc", SOCS)
def test_ascend_gates_llm_shapes(soc: str) -> None:
    # Llama's MLP (intermediate 11008, 16 tokens: chunked rows), 4096 at 64 tokens (several tiles
    # per core), and 4099 rows of 33 (many small rows per tile, strided copies).
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            for rows, d in ((16, 11008), (64, 4096), (4099, 33)):
                check_ascend_gates(randn(rows, 2 * d, dtype=dtype, seed=rows) * 4)


def test_ascend_gates_special_values_and_shapes() -> None:
    # On Ascend910B (IEEE): infinities and NaN as torch gives them, exp overflowing, signed zeros.
    tail = [-100.0, -88.5, -20.0, -0.0, 0.0, 1e-30, -1e-30, 20.0, 100.0, 3.0e4, -3.0e4]
    tail += [float("inf"), -float("inf"), float("nan")]
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        check_ascend_gates(torch.tensor([tail + [2.0] * len(tail)], dtype=dtype))  # x, then y
    check_ascend_gates(randn(2, 3, 2 * 80, seed=5))
    check_ascend_gates(torch.randn(0, 8))
    check_ascend_gates(torch.randn(3, 0))


def test_ascend_gates_decline_what_they_cannot_take() -> None:
    # Bad input (test_bad_input) is declined too, and the portable kernel's message reports it.
    with on_soc("Ascend310P"):
        x = torch.randn(2, 8)
        check_declines(SILU, x.bfloat16(), out=torch.empty(0).bfloat16(), reason="BFloat16")
        x[1, 5] = float("nan")
        check_declines(GELU, x, "tanh", out=torch.empty(0), reason="input holding inf or NaN")


# Row views (issue #37): the gates of a slice or a split of a wider buffer, and outs written into
# one. The Ascend kernels read and write them where they lie, with no fallback: each result
# matches the reference, and bit for bit the same call on a dense copy, and an out view changes
# nothing between its rows.


def gate_views(dtype: torch.dtype) -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    """(name, input view, out laid out as the out view to write)."""
    grouped = rows_of(4, 3 * 64, 3 * 64 + 16, 0, dtype, seed=1).view(4, 3, 64)
    return [
        ("x[:, :2d]", rows_of(4, 128, 160, 0, dtype, seed=2), rows_of(4, 64, 96, 32, dtype, 3)),
        (
            "d not whole blocks",
            rows_of(5, 66, 80, 0, dtype, seed=4),
            rows_of(5, 33, 40, 2, dtype, 5),
        ),
        (
            "stride not whole blocks",
            rows_of(3, 40, 45, 1, dtype, 6),
            rows_of(3, 20, 21, 1, dtype, 7),
        ),
        ("3-d views", grouped, rows_of(4, 3 * 32, 3 * 32 + 8, 0, dtype, 8).view(4, 3, 32)),
        (
            "rows in chunks",
            rows_of(16, 2 * 11008, 2 * 11008 + 64, 0, dtype, 9),
            rows_of(16, 11008, 11040, 0, dtype, 10),
        ),
        (
            "many rows",
            rows_of(4099, 66, 96, 0, dtype, seed=11),
            rows_of(4099, 33, 48, 0, dtype, 12),
        ),
    ]


@pytest.mark.parametrize("soc", SOCS)
def test_ascend_gates_row_views(soc: str) -> None:
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            for case, x, out_layout in gate_views(dtype):
                for name, approximate in GATES:
                    expected = reference(name, x, approximate)
                    dense = torch.empty(0, dtype=dtype)
                    call_ascend(name, x.contiguous(), *approximate, out=dense)
                    out = laid_out_as(out_layout, seed=13)
                    before = buffer_of(out).clone()
                    assert call_ascend_served(name, x, *approximate, out=out), f"{case}: no launch"
                    atol = torch.finfo(dtype).eps * magnitude(expected)
                    assert_same(out, expected, atol=atol, tolerances=tolerances_for("ascend"))
                    assert torch.equal(out, dense), f"{case}, {dtype}: the view differs"
                    assert_only_rows_written(out, before)


def test_ascend_gates_row_views_they_cannot_take() -> None:
    # Gated rows whose halves are not whole blocks, several to a dim-0 row, have no layout a
    # strided DataCopy reads in place: the portable kernel serves them.
    x = rows_of(4, 3 * 20, 64, 0, torch.float32, seed=1).view(4, 3, 20)
    reason = "input with rows of 20 elements 3 to a dim-0 row 64 apart"
    check_declines(SILU, x, out=torch.empty(0), reason=reason)
    # An out whose rows overlap is refused, as the portable kernel refuses it.
    out = torch.zeros(20).as_strided((4, 8), (4, 1))
    with pytest.raises(kiln.KilnError, match="rows overlap"):
        kiln.call_op(GELU, randn(4, 16, seed=2), "tanh", out=out, backend="ascend")
    assert not out.any()
