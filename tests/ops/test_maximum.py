"""aten::maximum.out and aten::minimum.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import SETTINGS, check_tensor_tensor, raises
from hypothesis import given
from hypothesis import strategies as st
from op_compare import backend_of, check_op
from strategies import make_tensor

aten = torch.ops.aten


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_extremum_matches_torch(call_op: Any, op: str, data: Any) -> None:
    check_tensor_tensor(call_op, data, f"aten::{op}.out", getattr(aten, op).out)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_extremum_propagates_nan(call_op: Any, dtype: torch.dtype) -> None:
    nan, inf = float("nan"), float("inf")
    a = torch.tensor([nan, 1.0, nan, -inf, 0.0, 2.0] * 50, dtype=dtype)
    b = torch.tensor([1.0, nan, nan, inf, -0.0, -2.0] * 50, dtype=dtype)
    for op in ["maximum", "minimum"]:
        out = torch.empty(0, dtype=dtype)
        check_op(call_op, f"aten::{op}.out", getattr(aten, op).out, (a, b), out=out)


def test_extremum_errors(call_op: Any) -> None:
    a = make_tensor(torch.float32, (3,), 1)
    with raises(call_op, "can't be cast"):
        call_op("aten::maximum.out", a, a, out=torch.empty(0, dtype=torch.int32))
    with raises(call_op, "not broadcastable"):
        call_op("aten::minimum.out", a, torch.ones(2), out=torch.empty(0))


# BFloat16 patterns at the edges: NaNs of both signs, infinities, signed zeros, subnormals, and
# neighbours that differ in the last bit.
BFLOAT16_EDGES = [0x7FC1, 0xFFC1, 0x7F81, 0xFF81, 0x7F80, 0xFF80, 0x8000, 0x0000, 0x0001]
BFLOAT16_EDGES += [0x8001, 0x3F80, 0xBF80, 0x3F81, 0xBF81, 0x0080, 0x7F7F, 0xFF7F]


@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("repeat", [1, 5])
def test_bfloat16_extremum_matches_torch_bit_for_bit(call_op: Any, op: str, repeat: int) -> None:
    # Every pair of edge patterns; which zero is taken and the NaN's pattern must be ATen's.
    signed = [bits - 0x10000 if bits >= 0x8000 else bits for bits in BFLOAT16_EDGES]
    pairs = [(x, y) for x in signed for y in signed] * repeat
    a = torch.tensor([x for x, _ in pairs], dtype=torch.int16).view(torch.bfloat16)
    b = torch.tensor([y for _, y in pairs], dtype=torch.int16).view(torch.bfloat16)
    out = call_op(f"aten::{op}.out", a, b, out=torch.empty_like(a))
    expected = getattr(aten, op).out(a, b, out=torch.empty_like(a))
    nan = expected.isnan()
    assert torch.equal(out.isnan(), nan)
    if backend_of(call_op) == "ascend":
        # The Ascend kernels promise values, not bit patterns (docs/ascend.md).
        assert torch.equal(out[~nan], expected[~nan])
        return
    assert torch.equal(out.view(torch.int16), expected.view(torch.int16))
