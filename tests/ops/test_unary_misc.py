"""aten::abs.out, neg, sign, logical_not, bitwise_not, isnan and isinf against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import backend_of, check_op, raises
from strategies import ALL_DTYPES, dtypes, make_tensor, out_like, out_tensors, tensors

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
SAME_DTYPE_OPS = ["aten::abs.out", "aten::neg.out", "aten::sign.out", "aten::bitwise_not.out"]
PREDICATES = ["aten::isnan.out", "aten::isinf.out"]


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", SAME_DTYPE_OPS)
def test_same_dtype_ops_match_torch(call_op: Any, op: str, data: Any) -> None:
    op = op.removeprefix("aten::").removesuffix(".out")
    a = data.draw(tensors())
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, f"aten::{op}.out", getattr(aten, op).out, (a,), out=out)


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", PREDICATES)
def test_predicates_match_torch(call_op: Any, op: str, data: Any) -> None:
    op = op.removeprefix("aten::").removesuffix(".out")
    a = data.draw(tensors(special=True))
    out = data.draw(out_tensors(torch.bool, tuple(a.shape)))
    check_op(call_op, f"aten::{op}.out", getattr(aten, op).out, (a,), out=out)


@SETTINGS
@given(data=st.data())
def test_logical_not_matches_torch(call_op: Any, data: Any) -> None:
    # Any out dtype takes the Bool result.
    a = data.draw(tensors())
    out_dtype = data.draw(dtypes)
    shape = tuple(a.shape) if data.draw(st.booleans()) else None
    check_op(
        call_op, "aten::logical_not.out", aten.logical_not.out, (a,), out=out_like(out_dtype, shape)
    )


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_misc_long_inputs_and_extremes(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (2, 1500), 3, special=True)
    if not dtype.is_floating_point and dtype != torch.bool:
        a[0, :2] = torch.tensor([torch.iinfo(dtype).min, torch.iinfo(dtype).max])
    for name in [*SAME_DTYPE_OPS, *PREDICATES, "aten::logical_not.out"]:
        op = name.removeprefix("aten::").removesuffix(".out")
        out_dtype = torch.bool if op in ("isnan", "isinf", "logical_not") else dtype
        out = torch.empty(0, dtype=out_dtype)
        check_op(call_op, name, getattr(aten, op).out, (a,), out=out)


def test_misc_errors(call_op: Any) -> None:
    flags = torch.tensor([True, False])
    with raises(call_op, "not implemented for Bool"):
        call_op("aten::abs.out", flags, out=torch.empty(0, dtype=torch.bool))
    with raises(call_op, "Negation, the `-` operator, on a bool tensor"):
        call_op("aten::neg.out", flags, out=torch.empty(0, dtype=torch.bool))
    with raises(call_op, "not implemented for dtype Float"):
        call_op("aten::bitwise_not.out", torch.ones(2), out=torch.empty(0))
    with raises(call_op, "Expected out tensor to have dtype Bool"):
        call_op("aten::isnan.out", torch.ones(2), out=torch.empty(0))
    with raises(call_op, "Expected out tensor to have dtype Float"):
        call_op("aten::abs.out", torch.ones(2), out=torch.empty(0, dtype=torch.float64))


# 16-bit patterns at the edges: quiet and signalling NaNs of both signs (Half's and BFloat16's),
# infinities, signed zeros, subnormals and ordinary values.
EDGE_BITS = [0x7FC1, 0xFFC1, 0x7F81, 0xFF81, 0x7F80, 0xFF80, 0x8000, 0x0000, 0x0001, 0x8001]
EDGE_BITS += [0x3F80, 0xBF80, 0x7FFF, 0xFFFF, 0x7C01, 0xFC01, 0x7E00, 0x0400, 0x03FF, 0x83FF]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("op", ["abs", "neg"])
@pytest.mark.parametrize("repeat", [1, 16, 3264])
def test_sign_ops_keep_16_bit_patterns(
    call_op: Any, dtype: torch.dtype, op: str, repeat: int
) -> None:
    # abs and neg touch only the sign bit, as ATen's vector loops do: every other bit, a NaN's
    # payload included, is kept. ATen's scalar remainder (past the last 64 elements) rounds NaNs
    # through float instead, so NaN patterns are compared where ATen vectorises: lengths that
    # are multiples of 64; every other value is compared bit for bit at every length.
    signed = [bits - 0x10000 if bits >= 0x8000 else bits for bits in EDGE_BITS]
    a = torch.tensor(signed * repeat, dtype=torch.int16).view(dtype)
    out = call_op(f"aten::{op}.out", a, out=torch.empty_like(a))
    expected = getattr(aten, op).out(a, out=torch.empty_like(a))
    nan = expected.isnan()
    assert torch.equal(out.isnan(), nan)
    if backend_of(call_op) == "ascend":
        # The Ascend kernels promise values, not bit patterns (docs/ascend.md): their abs keeps
        # -0.0's sign and their NaNs have other payloads.
        assert torch.equal(out[~nan], expected[~nan])
        return
    assert torch.equal(out.view(torch.int16)[~nan], expected.view(torch.int16)[~nan])
    if a.numel() % 64 == 0:
        assert torch.equal(out.view(torch.int16), expected.view(torch.int16))
