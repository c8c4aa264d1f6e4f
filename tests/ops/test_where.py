"""aten::where.self_out against torch."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
from binary_checks import SETTINGS, raises
from hypothesis import given
from hypothesis import strategies as st
from op_compare import check_op
from strategies import broadcastable_shapes, dtypes, make_tensor, out_tensors, tensors

aten = torch.ops.aten


@SETTINGS
@given(data=st.data())
def test_where_matches_torch(call_op: Any, data: Any) -> None:
    shape_a, shape_b = data.draw(broadcastable_shapes())
    shape_c = data.draw(st.sampled_from([shape_a, shape_b, (), shape_a[1:]]))
    condition = data.draw(tensors(torch.bool, shape_c))
    dtype_a = data.draw(dtypes)
    dtype_b = dtype_a if data.draw(st.booleans()) else data.draw(dtypes)
    a = data.draw(tensors(dtype_a, shape_a))
    b = data.draw(tensors(dtype_b, shape_b))
    shape = tuple(torch.broadcast_shapes(condition.shape, a.shape, b.shape))
    out = data.draw(out_tensors(torch.result_type(a, b), shape))
    check_op(call_op, "aten::where.self_out", aten.where.self_out, (condition, a, b), out=out)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool])
def test_where_long_rows(call_op: Any, dtype: torch.dtype) -> None:
    condition = make_tensor(torch.bool, (3, 700), 1)
    a = make_tensor(dtype, (3, 700), 2)
    b = make_tensor(dtype, (700,), 3)
    out = torch.empty(0, dtype=dtype)
    check_op(call_op, "aten::where.self_out", aten.where.self_out, (condition, a, b), out=out)
    mixed = make_tensor(torch.float64, (3, 1), 4)
    out = torch.empty(0, dtype=torch.float64)
    check_op(call_op, "aten::where.self_out", aten.where.self_out, (condition, a, mixed), out=out)


@pytest.mark.parametrize(
    "dtype", [torch.bool, torch.int8, torch.float16, torch.bfloat16, torch.float32, torch.float64]
)
def test_where_selects_bits_of_every_width(call_op: Any, dtype: torch.dtype) -> None:
    # The select is a bit select on elements of 1, 2, 4 or 8 bytes: a random mask over long rows
    # (the vector loop and its tail), specials kept bit for bit, and a single-element condition,
    # self or other repeated along the rows (through a buffer, chunk by chunk).
    n = 1000
    condition = make_tensor(torch.bool, (3, n), 5)
    special = dtype.is_floating_point
    a = make_tensor(dtype, (3, n), 6, special=special)
    b = make_tensor(dtype, (3, n), 7, special=special)
    one = make_tensor(dtype, (), 8)
    out = torch.empty(0, dtype=dtype)
    for args in [
        (condition, a, b),
        (condition, a, one),
        (condition, one, b),
        (torch.tensor(True), a, b),
        (condition[:, :1].contiguous(), a, b),
        (condition[0], one, b),
    ]:
        check_op(call_op, "aten::where.self_out", aten.where.self_out, args, out=out)
    # Mixed dtypes take the converting path, here with a single-element condition too.
    wide = make_tensor(torch.float64, (3, n), 9)
    out = torch.empty(0, dtype=torch.float64)
    for args in [(condition, a, wide), (torch.tensor(False), wide, a)]:
        check_op(call_op, "aten::where.self_out", aten.where.self_out, args, out=out)


def test_where_uint8_condition(call_op: Any) -> None:
    # Any nonzero byte selects self: 2 and 255 as 1.
    condition = torch.tensor([0, 1, 2, 0, 255, 128, 0, 7, 1], dtype=torch.uint8)
    a, b = torch.arange(9.0), -torch.arange(9.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.where(condition, a, b)
    out = call_op("aten::where.self_out", condition, a, b, out=torch.empty(0))
    torch.testing.assert_close(out, expected)


def test_where_errors(call_op: Any) -> None:
    a = torch.ones(3)
    with raises(call_op, "boolean tensor"):
        call_op("aten::where.self_out", torch.ones(3), a, a, out=torch.empty(0))
    with raises(call_op, "Expected out tensor to have dtype Float"):
        mask = torch.ones(3, dtype=torch.bool)
        call_op("aten::where.self_out", mask, a, a, out=torch.empty(0, dtype=torch.float64))
    with raises(call_op, "not broadcastable"):
        mask = torch.ones(2, dtype=torch.bool)
        call_op("aten::where.self_out", mask, a, a, out=torch.empty(0))
