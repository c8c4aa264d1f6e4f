"""aten::floor.out, ceil, round, trunc and round.decimals_out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
from strategies import ALL_DTYPES, float_dtypes, make_tensor, out_tensors, tensors

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def torch_op(name: str) -> Any:
    """torch.ops.aten's overload for a Kiln op name such as "aten::floor.out"."""
    base, overload = name.removeprefix("aten::").split(".")
    return getattr(getattr(aten, base), overload)


OPS = ["aten::floor.out", "aten::ceil.out", "aten::round.out", "aten::trunc.out"]


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_rounding_matches_torch(call_op: Any, op: str, data: Any) -> None:
    # Halves (x.5) exercise round's ties-to-even.
    a = data.draw(tensors(magnitude=data.draw(st.sampled_from([2.0, 1e3, 1e9]))))
    if a.dtype.is_floating_point and data.draw(st.booleans()):
        a = (a * 2).round() / 2
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, op, torch_op(op), (a,), out=out)


@SETTINGS
@given(data=st.data())
def test_round_decimals_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(st.one_of(float_dtypes, st.sampled_from(ALL_DTYPES))))
    decimals = data.draw(st.one_of(st.integers(-4, 6), st.sampled_from([-50, 50])))
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(
        call_op,
        "aten::round.decimals_out",
        aten.round.decimals_out,
        (a,),
        {"decimals": decimals},
        out=out,
    )


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_rounding_long_inputs(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (1200,), 4, special=True, magnitude=50.0)
    for op in OPS:
        check_op(call_op, op, torch_op(op), (a,), out=torch.empty(0, dtype=dtype))


def test_rounding_errors(call_op: Any) -> None:
    flags = torch.tensor([True, False])
    with raises(call_op, "not implemented for Bool"):
        call_op("aten::floor.out", flags, out=torch.empty(0, dtype=torch.bool))
    with raises(call_op, "not implemented for dtype Int"):
        call_op(
            "aten::round.decimals_out",
            torch.ones(2, dtype=torch.int32),
            decimals=1,
            out=torch.empty(0, dtype=torch.int32),
        )
    with raises(call_op, "Expected out tensor to have dtype Int"):
        call_op("aten::trunc.out", torch.ones(2, dtype=torch.int32), out=torch.empty(0))
