"""aten::clamp.out (Scalar limits) and aten::clamp.Tensor_out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
from strategies import ALL_DTYPES, dtypes, make_tensor, out_tensors, shapes, tensors

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
limit_values = st.one_of(
    st.none(),
    st.integers(-5, 5),
    st.floats(-5, 5, width=32),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), True, False, 300]),
)


@SETTINGS
@given(data=st.data())
def test_clamp_scalar_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors())
    low, high = data.draw(limit_values), data.draw(limit_values)
    if low is None and high is None:
        high = 1
    result = torch.result_type(a, low if low is not None else high)
    if low is not None and high is not None:
        result = torch.promote_types(result, torch.result_type(a, high))
    out = data.draw(out_tensors(result, tuple(a.shape)))
    check_op(call_op, "aten::clamp.out", aten.clamp.out, (a, low, high), out=out)


@st.composite
def limit_tensors(draw: Any, shape: tuple) -> torch.Tensor | None:
    if draw(st.integers(0, 3)) == 0:
        return None
    sub = list(shape[draw(st.integers(0, len(shape))) :])
    for i in range(len(sub)):
        if draw(st.booleans()):
            sub[i] = 1
    dtype = draw(dtypes)
    return draw(tensors(dtype, tuple(sub), magnitude=3.0, int_range=(-3, 3)))


@SETTINGS
@given(data=st.data())
def test_clamp_tensor_matches_torch(call_op: Any, data: Any) -> None:
    shape = data.draw(shapes())
    a = data.draw(tensors(dtypes, shape))
    low, high = data.draw(limit_tensors(shape)), data.draw(limit_tensors(shape))
    if low is None and high is None:
        low = data.draw(tensors(a.dtype, ()))
    if data.draw(st.booleans()):
        a, low = (low, a) if low is not None and low.dim() > a.dim() else (a, low)
    operands = [t for t in (a, low, high) if t is not None]
    result = torch.result_type(operands[0], operands[1]) if len(operands) > 1 else a.dtype
    if len(operands) == 3:
        result = torch.promote_types(result, torch.result_type(operands[0], operands[2]))
    full = torch.broadcast_shapes(*(t.shape for t in operands))
    out = data.draw(out_tensors(result, tuple(full), other_dtype_p=0.3))
    check_op(call_op, "aten::clamp.Tensor_out", aten.clamp.Tensor_out, (a, low, high), out=out)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_clamp_long_inputs(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (3, 700), 6, special=True, int_range=(-20, 20))
    if dtype != torch.bool:
        check_op(
            call_op, "aten::clamp.out", aten.clamp.out, (a, -3, 4), out=torch.empty(0, dtype=dtype)
        )
    low = make_tensor(dtype, (700,), 7, int_range=(-20, 20))
    check_op(
        call_op,
        "aten::clamp.Tensor_out",
        aten.clamp.Tensor_out,
        (a, low, None),
        out=torch.empty(0, dtype=dtype),
    )


def test_clamp_errors(call_op: Any) -> None:
    a = torch.ones(2)
    with raises(call_op, "At least one of 'min' or 'max' must not be None"):
        call_op("aten::clamp.out", a, None, None, out=torch.empty(0))
    with raises(call_op, "At least one of 'min' or 'max' must not be None"):
        call_op("aten::clamp.Tensor_out", a, None, None, out=torch.empty(0))
    with raises(call_op, "Expected out tensor to have dtype Float"):
        call_op(
            "aten::clamp.out",
            torch.ones(2, dtype=torch.int32),
            0.5,
            None,
            out=torch.empty(0, dtype=torch.float64),
        )
    with raises(call_op, "without overflow"):
        call_op(
            "aten::clamp.out",
            torch.ones(2, dtype=torch.int8),
            300,
            None,
            out=torch.empty(0, dtype=torch.int8),
        )
    with raises(call_op, "clamp is not implemented for Bool"):
        call_op(
            "aten::clamp.out",
            torch.ones(2, dtype=torch.bool),
            True,
            None,
            out=torch.empty(0, dtype=torch.bool),
        )
    with raises(call_op, "not broadcastable"):
        call_op("aten::clamp.Tensor_out", torch.ones(2, 3), torch.ones(4), None, out=torch.empty(0))
    with raises(call_op, "can't be cast"):
        call_op(
            "aten::clamp.Tensor_out",
            torch.ones(2),
            torch.ones(2),
            None,
            out=torch.empty(0, dtype=torch.int64),
        )
