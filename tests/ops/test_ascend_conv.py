"""The Ascend 2-d convolution (im2col on the vector unit, product on the cube) against torch, on
both SoC profiles."""

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

NAME = "aten::convolution.out"
aten = torch.ops.aten


def check(
    x: torch.Tensor,
    w: torch.Tensor,
    b: torch.Tensor | None,
    stride: tuple[int, int] = (1, 1),
    padding: tuple[int, int] = (0, 0),
    dilation: tuple[int, int] = (1, 1),
    groups: int = 1,
) -> None:
    """As matmul's products (docs/ascend.md): the cube sums the k = C/groups * kh * kw products,
    and the bias as one more, in float in its own order; torch sums in another."""
    args = (x, w, b, list(stride), list(padding), list(dilation), False, [0, 0], groups)
    expected = aten.convolution(*args)
    k = w.shape[1] * w.shape[2] * w.shape[3] + (0 if b is None else 1)
    weights = magnitude(w) if b is None else max(magnitude(w), magnitude(b))
    atol = 2 * k * eps(x.dtype) * weights * magnitude(x)
    check_ascend(NAME, expected, *args, out=torch.empty(0, dtype=x.dtype), atol=atol)


# (input, weight, stride, padding, dilation, groups): the zoo CNN's layers; tails that are not
# whole 32-byte rows; strides, dilation and groups; depthwise; many pixels and channels; strided
# and dilated columns; output rows in several UB tiles of the im2col kernel.
CASES = (
    ((1, 3, 8, 8), (8, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((1, 8, 4, 4), (8, 8, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1), (0, 0), (1, 1), 1),
    ((2, 5, 13, 11), (7, 5, 3, 2), (2, 1), (1, 0), (1, 2), 1),
    ((3, 6, 9, 10), (9, 2, 3, 3), (1, 2), (2, 1), (2, 1), 3),
    ((2, 4, 15, 17), (4, 1, 3, 3), (1, 1), (1, 1), (1, 1), 4),
    ((2, 16, 32, 32), (40, 16, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((1, 2, 20, 31), (3, 2, 3, 3), (3, 3), (2, 1), (2, 3), 1),
    ((1, 1, 300, 300), (2, 1, 3, 3), (1, 1), (1, 1), (1, 1), 1),
)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("case", CASES, ids=[str(c[0]) + "x" + str(c[1]) for c in CASES])
def test_convolution(soc: str, case: tuple[Any, ...]) -> None:
    in_shape, w_shape, stride, padding, dilation, groups = case
    with on_soc(soc):
        for dtype in cube_dtypes(soc):
            x = cube_operand(in_shape, dtype, 1)
            w = cube_operand(w_shape, dtype, 2)
            b = cube_operand((w_shape[0],), dtype, 3)
            check(x, w, b, stride, padding, dilation, groups)
            check(x, w, None, stride, padding, dilation, groups)


def test_single_values_and_an_empty_batch() -> None:
    x = cube_operand((2, 3, 10, 9), torch.float32, 4)
    w = cube_operand((5, 3, 3, 3), torch.float32, 5)
    args = (x, w, None, [2], [1], [1], False, [0], 1)
    check_ascend(NAME, aten.convolution(*args), *args, out=torch.empty(0), atol=1e-4)
    empty = x[:0]
    out = torch.empty(3)
    args = (empty, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    check_ascend(NAME, aten.convolution(*args), *args, out=out)


def test_columns_on_the_vector_unit_product_on_the_cube() -> None:
    x = cube_operand((2, 4, 9, 9), torch.float16, 10)
    w = cube_operand((6, 4, 3, 3), torch.float16, 11)
    args = (x, w, w[:, 0, 0, 0].contiguous(), [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    launches = call_ascend(NAME, *args, out=torch.empty(0, dtype=torch.float16))
    assert [launch["kernel"] for launch in launches] == ["kiln_im2col_half", "kiln_matmul_half"]
    assert launches[0]["vector_instructions"] > 0 and launches[0]["cube_instructions"] == 0
    assert launches[1]["cube_instructions"] > 0


def test_nan_and_inf_propagate() -> None:
    x = cube_operand((1, 2, 6, 6), torch.float32, 6)
    x[0, 0, 2, 3] = float("nan")
    x[0, 1, 5, 5] = float("inf")
    w = cube_operand((3, 2, 3, 3), torch.float32, 7).abs() + 0.5
    check(x, w, None, padding=(1, 1))


def test_declines() -> None:
    x = cube_operand((1, 4, 6, 6), torch.float32, 8)
    w = cube_operand((2, 4, 3, 3), torch.float32, 9)
    out = torch.empty(0)
    base = (None, [1, 1], [0, 0], [1, 1])
    check_declines(
        NAME,
        x,
        w.transpose(0, 1).contiguous(),
        *base,
        True,
        [0, 0],
        1,
        out=out,
        reason="a transposed convolution",
    )
    check_declines(
        NAME,
        x[:, :, 0].contiguous(),
        w[:, :, 0].contiguous(),
        None,
        [1],
        [0],
        [1],
        False,
        [0],
        1,
        out=out,
        reason="a convolution that is not 2-d",
    )
    check_declines(
        NAME,
        x.double(),
        w.double(),
        *base,
        False,
        [0, 0],
        1,
        out=torch.empty(0, dtype=torch.float64),
        reason="dtype Double",
    )
    check_declines(
        NAME,
        x.int(),
        w.int(),
        *base,
        False,
        [0, 0],
        1,
        out=torch.empty(0, dtype=torch.int32),
        reason="dtype Int",
    )
    check_declines(
        NAME,
        x,
        w,
        w[:, 0, 0, 0].double(),
        *base[1:],
        False,
        [0, 0],
        1,
        out=out,
        reason="bias of dtype Double",
    )
    with on_soc("Ascend310P"):
        check_declines(NAME, x, w, *base, False, [0, 0], 1, out=out, reason="Float")
        b = torch.empty(0, dtype=torch.bfloat16)
        check_declines(
            NAME, x.bfloat16(), w.bfloat16(), *base, False, [0, 0], 1, out=b, reason="BFloat16"
        )
    wide = cube_operand((1, 1, 1, 70_000), torch.float16, 12)
    check_declines(
        NAME,
        wide,
        cube_operand((1, 1, 1, 1), torch.float16, 13),
        *base,
        False,
        [0, 0],
        1,
        out=torch.empty(0, dtype=torch.float16),
        reason="an input row too long",
    )
    # Invalid arguments decline, and the portable kernel reports them.
    bad = (x, w, None, [0, 1], [0, 0], [1, 1], False, [0, 0], 1)
    with pytest.raises(kiln.KilnError, match="does not take convolution arguments torch refuses"):
        kiln.call_op(NAME, *bad, out=out, backend="ascend", allow_fallback=False)
    with pytest.raises(kiln.KilnError, match="stride"):
        kiln.call_op(NAME, *bad, out=out, backend="ascend")
