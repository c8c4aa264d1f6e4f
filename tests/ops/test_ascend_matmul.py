"""The Ascend cube matmul kernel (mm, bmm, addmm, linear) against torch, on both SoC profiles."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from ascend_checks import (
    SOCS,
    call_ascend,
    check_ascend,
    check_declines,
    cube_dtypes,
    cube_operand,
    on_soc,
)
from op_compare import eps, magnitude

import kiln
import kiln.ascend

# (m, k, n): a single element; tails that are not whole 32-byte rows or 16-row fractals; C blocks
# on many cores; k spanning several base tiles and L1 steps.
SHAPES = ((1, 1, 1), (7, 13, 9), (70, 150, 45), (33, 300, 130), (130, 1030, 200))


def product_atol(k: int, dtype: torch.dtype, *factors: Any) -> float:
    """The cube adds the k products in float in its own order (per base tile of k), torch in
    another: each partial sum may round differently. Bounding each of those roundings by one
    unit of the dtype at the largest product gives k * eps(dtype) * |a|max * |b|max; the factor
    2 covers the last rounding of two results that straddle a tie."""
    scale = 1.0
    for f in factors:
        scale *= magnitude(f)
    return 2 * max(k, 1) * eps(dtype) * scale


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(("m", "k", "n"), SHAPES)
def test_mm(soc: str, m: int, k: int, n: int) -> None:
    with on_soc(soc):
        for dtype in cube_dtypes(soc):
            a = cube_operand((m, k), dtype, 1)
            b = cube_operand((k, n), dtype, 2)
            out = torch.empty(0, dtype=dtype)
            atol = product_atol(k, dtype, a, b)
            check_ascend("aten::mm.out", torch.mm(a, b), a, b, out=out, atol=atol)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(("batches", "m", "k", "n"), [(3, 7, 13, 9), (30, 20, 40, 24)])
def test_bmm(soc: str, batches: int, m: int, k: int, n: int) -> None:
    # 30 batches give every core several C blocks.
    with on_soc(soc):
        for dtype in cube_dtypes(soc):
            a = cube_operand((batches, m, k), dtype, 3)
            b = cube_operand((batches, k, n), dtype, 4)
            out = torch.empty(0, dtype=dtype)
            atol = product_atol(k, dtype, a, b)
            check_ascend("aten::bmm.out", torch.bmm(a, b), a, b, out=out, atol=atol)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(("m", "k", "n"), [(7, 13, 9), (70, 150, 45)])
@pytest.mark.parametrize("self_shape", ["row", "1xn", "scalar", "1"])
def test_addmm_row_bias(soc: str, m: int, k: int, n: int, self_shape: str) -> None:
    shape = {"row": (n,), "1xn": (1, n), "scalar": (), "1": (1,)}[self_shape]
    with on_soc(soc):
        for dtype in cube_dtypes(soc):
            c = cube_operand(shape, dtype, 5)
            a = cube_operand((m, k), dtype, 6)
            b = cube_operand((k, n), dtype, 7)
            expected = torch.addmm(c, a, b)
            atol = product_atol(k + 1, dtype, a, b, c)
            out = torch.empty(0, dtype=dtype)
            check_ascend(
                "aten::addmm.out", expected, c, a, b, out=out, atol=atol, beta=1, alpha=1.0
            )


def test_addmm_full_self_on_float_and_beta_zero() -> None:
    # A full float self starts in C and the cube adds the product to it; beta == 0 ignores self,
    # NaN included.
    a = cube_operand((33, 300), torch.float32, 8)
    b = cube_operand((300, 130), torch.float32, 9)
    c = cube_operand((33, 130), torch.float32, 10)
    atol = product_atol(301, torch.float32, a, b, c)
    check_ascend("aten::addmm.out", torch.addmm(c, a, b), c, a, b, out=torch.empty(0), atol=atol)
    for soc in SOCS:
        with on_soc(soc):
            for dtype in cube_dtypes(soc):
                nan = torch.full((33, 130), float("nan"), dtype=dtype)
                x, y = a.to(dtype), b.to(dtype)
                expected = torch.addmm(nan, x, y, beta=0)
                out = torch.empty(0, dtype=dtype)
                atol = product_atol(300, dtype, x, y)
                check_ascend("aten::addmm.out", expected, nan, x, y, out=out, atol=atol, beta=0)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("lead", [(), (5,), (2, 3, 7)])
@pytest.mark.parametrize("bias_shape", ["none", "row", "scalar", "1xn"])
def test_linear(soc: str, lead: tuple[int, ...], bias_shape: str) -> None:
    k, n = 37, 133
    with on_soc(soc):
        for dtype in cube_dtypes(soc):
            x = cube_operand((*lead, k), dtype, 11)
            w = cube_operand((n, k), dtype, 12)
            shape = {"none": None, "row": (n,), "scalar": (), "1xn": (1, n)}[bias_shape]
            if shape is not None and len(shape) > len(lead) + 1:
                continue  # torch's result would have more dims than the product
            bias = None if shape is None else cube_operand(shape, dtype, 13)
            expected = torch.nn.functional.linear(x, w, bias)
            factors = (x, w) if bias is None else (x, w, bias)
            atol = product_atol(k + 1, dtype, *factors)
            out = torch.empty(0, dtype=dtype)
            check_ascend("aten::linear.out", expected, x, w, bias, out=out, atol=atol)


def test_linear_full_bias_on_float() -> None:
    x = cube_operand((4, 6, 300), torch.float32, 14)
    w = cube_operand((70, 300), torch.float32, 15)
    bias = cube_operand((4, 6, 70), torch.float32, 16)
    expected = torch.nn.functional.linear(x, w, bias)
    atol = product_atol(301, torch.float32, x, w, bias)
    check_ascend("aten::linear.out", expected, x, w, bias, out=torch.empty(0), atol=atol)


@pytest.mark.parametrize("soc", SOCS)
def test_nan_and_inf_propagate(soc: str) -> None:
    # Products with NaN, inf * 0 and inf - inf: the cube's float sums give torch's NaN and inf.
    with on_soc(soc):
        for dtype in cube_dtypes(soc):
            a = cube_operand((9, 20), dtype, 17)
            b = cube_operand((20, 11), dtype, 18)
            a[0, 3] = float("nan")
            a[2, 5] = float("inf")
            b[5, 4] = 0.0
            a[4, 6] = float("inf")
            a[4, 7] = float("-inf")
            b[6, :] = 1.0
            b[7, :] = 1.0
            b[9, 2] = float("-inf")
            atol = product_atol(20, dtype, a, b)
            out = torch.empty(0, dtype=dtype)
            check_ascend("aten::mm.out", torch.mm(a, b), a, b, out=out, atol=atol)


def test_empty_products_resize_without_launching() -> None:
    for m, k, n in [(0, 5, 3), (4, 5, 0)]:
        a, b = torch.ones(m, k), torch.ones(k, n)
        assert call_ascend("aten::mm.out", a, b, out=torch.empty(0)) == []
    a, b = torch.ones(0, 2, 3), torch.ones(0, 3, 4)
    out = torch.empty(5)
    assert call_ascend("aten::bmm.out", a, b, out=out) == []
    assert out.shape == (0, 2, 4)


def test_launch_report() -> None:
    # A linear layer [128 tokens, 1024] x [1024 -> 1024] in half: C blocks on (nearly) every cube
    # core.
    x = cube_operand((128, 1024), torch.float16, 19)
    w = cube_operand((1024, 1024), torch.float16, 20)
    launches = call_ascend("aten::linear.out", x, w, None, out=torch.empty(0, dtype=torch.float16))
    assert len(launches) == 1
    report = launches[0]
    assert report["kernel"] == "kiln_matmul_half"
    assert 20 <= report["blocks"] <= 24  # the 24 cube cores of Ascend910B
    assert report["cube_instructions"] > 0
    assert report["vector_instructions"] == 0


def test_launch_report_counts_cube_bytes() -> None:
    half = torch.float16
    # One C block of one base tile: A, B (and the bias, widened to float) move GM -> L1 once, C
    # moves L0C -> GM once; nothing goes through UB.
    a, b = cube_operand((7, 13), half, 21), cube_operand((13, 9), half, 22)
    (report,) = call_ascend("aten::mm.out", a, b, out=torch.empty(0, dtype=half))
    assert report["gm_to_l1_bytes"] == (7 * 13 + 13 * 9) * 2
    assert report["l0c_to_gm_bytes"] == 7 * 9 * 2
    assert report["gm_to_ub_bytes"] == report["ub_to_gm_bytes"] == 0
    w, bias = cube_operand((9, 13), half, 23), cube_operand((9,), half, 24)
    (report,) = call_ascend("aten::linear.out", a, w, bias, out=torch.empty(0, dtype=half))
    assert report["gm_to_l1_bytes"] == (7 * 13 + 9 * 13) * 2 + 9 * 4
    assert report["l0c_to_gm_bytes"] == 7 * 9 * 2
    # C blocks on many cores: each loads its own rows of A and columns of B; C leaves once.
    a, b = cube_operand((512, 512), half, 25), cube_operand((512, 512), half, 26)
    (report,) = call_ascend("aten::mm.out", a, b, out=torch.empty(0, dtype=half))
    assert report["gm_to_l1_bytes"] > 2 * 512 * 512 * 2
    assert report["l0c_to_gm_bytes"] == 512 * 512 * 2


def test_rows_up_to_the_nd_row_stride_limit() -> None:
    # The Matmul API's ND row strides (Ka, Kb, N) reach 65535 elements; Kiln pads rows to 32
    # bytes, so 65520 half elements is the longest k or n it runs. Longer rows decline.
    half = torch.float16
    for m, k, n in [(2, 65520, 3), (3, 5, 65520)]:
        a, b = cube_operand((m, k), half, 27), cube_operand((k, n), half, 28)
        atol = product_atol(k, half, a, b)
        check_ascend(
            "aten::mm.out", torch.mm(a, b), a, b, out=torch.empty(0, dtype=half), atol=atol
        )
    for m, k, n in [(2, 65521, 3), (3, 5, 70000)]:
        a, b = torch.ones(m, k, dtype=half), torch.ones(k, n, dtype=half)
        check_declines(
            "aten::mm.out",
            a,
            b,
            out=torch.empty(0, dtype=half),
            reason=f"k = {k}, n = {n} .rows",
        )
    x, w = torch.ones(4, 70000, dtype=half), torch.ones(5, 70000, dtype=half)
    check_declines(
        "aten::linear.out",
        x,
        w,
        None,
        out=torch.empty(0, dtype=half),
        reason="k = 70000, n = 5 .rows",
    )


def test_declines() -> None:
    f64 = torch.ones(3, 4, dtype=torch.float64)
    check_declines(
        "aten::mm.out", f64, f64.T.contiguous(), out=f64.new_empty(0), reason="dtype Double"
    )
    i32 = torch.ones(3, 4, dtype=torch.int32)
    check_declines(
        "aten::mm.out", i32, i32.T.contiguous(), out=i32.new_empty(0), reason="dtype Int"
    )
    with on_soc("Ascend310P"):
        a = torch.ones(3, 4)
        check_declines("aten::mm.out", a, a.T.contiguous(), out=torch.empty(0), reason="Float")
        b = a.bfloat16()
        check_declines("aten::mm.out", b, b.T.contiguous(), out=b.new_empty(0), reason="BFloat16")
    h = torch.ones(3, 4, dtype=torch.float16)
    empty_k = torch.ones(3, 0, dtype=torch.float16)
    check_declines(
        "aten::mm.out", empty_k, empty_k.T.contiguous(), out=h.new_empty(0), reason="an empty inner"
    )
    m1, m2 = torch.ones(3, 4, dtype=torch.float16), torch.ones(4, 5, dtype=torch.float16)
    row = torch.ones(5, dtype=torch.float16)
    check_declines(
        "aten::addmm.out", row, m1, m2, out=h.new_empty(0), reason="alpha other than 1", alpha=2
    )
    check_declines(
        "aten::addmm.out", row, m1, m2, out=h.new_empty(0), reason="beta other than", beta=0.5
    )
    full = torch.ones(3, 5, dtype=torch.float16)
    check_declines("aten::addmm.out", full, m1, m2, out=h.new_empty(0), reason="self of shape")
    column = torch.ones(3, 1)
    check_declines(
        "aten::addmm.out",
        column,
        m1.float(),
        m2.float(),
        out=torch.empty(0),
        reason="self of shape",
    )
    x, w1 = torch.ones(2, 4), torch.ones(4)
    check_declines("aten::linear.out", x, w1, None, out=torch.empty(0), reason="input")
    lead_bias = torch.ones(2, 1, 3)
    x3, w = torch.ones(2, 5, 4), torch.ones(3, 4)
    check_declines("aten::linear.out", x3, w, lead_bias, out=torch.empty(0), reason="bias of shape")


@pytest.mark.parametrize(
    ("args", "out", "reason", "error"),
    [
        ((torch.ones(2, 3), torch.ones(2, 3)), torch.empty(0), "operands of shapes", "multiplied"),
        (
            (torch.ones(2, 3, dtype=torch.float16), torch.ones(3, 2)),
            torch.empty(0, dtype=torch.float16),
            "mat2 of dtype Float",
            "same dtype",
        ),
        (
            (torch.ones(2, 3, dtype=torch.float16), torch.ones(3, 2, dtype=torch.float16)),
            torch.empty(0),
            "out of dtype Float",
            "Expected out tensor",
        ),
    ],
)
def test_invalid_input_declines_and_portable_reports_it(
    args: tuple[torch.Tensor, ...], out: torch.Tensor, reason: str, error: str
) -> None:
    with pytest.raises(kiln.KilnError, match=f"does not take {reason}"):
        kiln.call_op("aten::mm.out", *args, out=out, backend="ascend", allow_fallback=False)
    with pytest.raises(kiln.KilnError, match=error):
        kiln.call_op("aten::mm.out", *args, out=out, backend="ascend")
