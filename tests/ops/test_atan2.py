"""aten::atan2.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import SETTINGS, check_tensor_tensor, floating, raises
from hypothesis import given
from hypothesis import strategies as st
from op_compare import check_op
from strategies import make_tensor

aten = torch.ops.aten


@SETTINGS
@given(data=st.data())
def test_atan2_matches_torch(call_op: Any, data: Any) -> None:
    # Integer operands compute in float32: Kiln's atan2 is within 1.7 ulp there, not exact.
    check_tensor_tensor(
        call_op, data, "aten::atan2.out", aten.atan2.out, result=floating, ints_to_float=True
    )


def test_atan2_quadrants_and_specials(call_op: Any) -> None:
    values = [0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf"), float("nan")]
    a = torch.tensor(values).repeat_interleave(len(values))
    b = torch.tensor(values).repeat(len(values))
    check_op(call_op, "aten::atan2.out", aten.atan2.out, (a, b), out=torch.empty(0))
    ints = make_tensor(torch.int32, (5, 1), 1, int_range=(-3, 3))
    check_op(call_op, "aten::atan2.out", aten.atan2.out, (ints, ints.T), out=torch.empty(0))


def float_ulps(got: torch.Tensor, exact: torch.Tensor) -> torch.Tensor:
    """|got - exact| in units of the float spacing at exact's magnitude."""
    rounded = exact.float().abs()
    spacing = torch.nextafter(rounded, torch.tensor(float("inf"))) - rounded
    return (got.double() - exact).abs() / spacing.double()


def test_atan2_float32_accuracy(call_op: Any) -> None:
    # Kiln's vectorised atan2 is within 1.7 ulp (measured) of the exact angle over operands of
    # every magnitude and sign, near the diagonal and near the axes, in long rows (vector loop and
    # tail); ATen's is within 1.
    gen = torch.Generator().manual_seed(5)
    n = 100_003
    y = torch.randn(n, generator=gen) * torch.exp2(torch.randint(-30, 30, (n,), generator=gen))
    x = torch.randn(n, generator=gen) * torch.exp2(torch.randint(-30, 30, (n,), generator=gen))
    diagonal = y * (1 + 1e-3 * torch.randn(n, generator=gen))
    axis = y * 1e-9
    for a, b in [(y, x), (y, diagonal), (diagonal, y), (y, axis), (axis, y)]:
        got = call_op("aten::atan2.out", a, b, out=torch.empty(0))
        assert float_ulps(got, torch.atan2(a.double(), b.double())).max().item() < 2.0


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_atan2_other_floating_dtypes(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (3, 1000), 2, special=True)
    b = make_tensor(dtype, (3, 1000), 3, special=True)
    check_op(call_op, "aten::atan2.out", aten.atan2.out, (a, b), out=torch.empty(0, dtype=dtype))


def test_atan2_errors(call_op: Any) -> None:
    a = torch.ones(3, dtype=torch.int32)
    with raises(call_op, "can't be cast"):
        call_op("aten::atan2.out", a, a, out=torch.empty(0, dtype=torch.int32))
