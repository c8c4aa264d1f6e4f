"""aten::atan2.out against torch."""

from __future__ import annotations

from typing import Any

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
    check_tensor_tensor(call_op, data, "aten::atan2.out", aten.atan2.out, result=floating)


def test_atan2_quadrants_and_specials(call_op: Any) -> None:
    values = [0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf"), float("nan")]
    a = torch.tensor(values).repeat_interleave(len(values))
    b = torch.tensor(values).repeat(len(values))
    check_op(call_op, "aten::atan2.out", aten.atan2.out, (a, b), out=torch.empty(0))
    ints = make_tensor(torch.int32, (5, 1), 1, int_range=(-3, 3))
    check_op(call_op, "aten::atan2.out", aten.atan2.out, (ints, ints.T), out=torch.empty(0))


def test_atan2_errors(call_op: Any) -> None:
    a = torch.ones(3, dtype=torch.int32)
    with raises(call_op, "can't be cast"):
        call_op("aten::atan2.out", a, a, out=torch.empty(0, dtype=torch.int32))
