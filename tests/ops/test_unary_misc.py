"""aten::abs.out, neg, sign, logical_not, bitwise_not, isnan and isinf against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
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
