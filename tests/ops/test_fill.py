"""aten::fill.Scalar_out, fill.Tensor_out and scalar_tensor.out against torch: out (of self's
dtype and shape, or 0-dim) filled with one value. A Scalar value is range-checked as fill_ checks
it; a 0-dim tensor value converts as copy_ converts."""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
from strategies import (
    any_scalars,
    dtypes,
    make_tensor,
    out_like,
    out_tensors,
    seeds,
    shapes,
    tensors,
)

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
fill_values = st.one_of(
    any_scalars,
    st.integers(-300, 300),
    st.floats(-1e5, 1e5, allow_nan=False, width=32),
    # (2.0**63 is left out: torch converts it to int64 by the platform's out-of-range cast.)
    st.sampled_from([1e39, -1e39, 70000.0, 2.0**62, -(2**63)]),
)


@SETTINGS
@given(data=st.data())
def test_fill_scalar_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 4)))
    value = data.draw(fill_values)
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, "aten::fill.Scalar_out", aten.fill.Scalar_out, (a, value), out=out)


@SETTINGS
@given(data=st.data())
def test_fill_tensor_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 4)))
    value_dtype = data.draw(dtypes)
    # Float values out of an integer dtype's range (and nan) convert in a platform-defined way in
    # C++, as for copy_; keep them in range there.
    to_int = value_dtype.is_floating_point and not a.dtype.is_floating_point
    value = make_tensor(
        value_dtype,
        data.draw(st.sampled_from([(), (), (), (1,)])),  # 1-dim values are refused
        data.draw(seeds),
        special=not to_int,
        magnitude=50.0 if to_int else 1e5,
    )
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, "aten::fill.Tensor_out", aten.fill.Tensor_out, (a, value), out=out)


@SETTINGS
@given(data=st.data())
def test_scalar_tensor_matches_torch(call_op: Any, data: Any) -> None:
    value = data.draw(fill_values)
    # out is resized to 0-dim whatever its shape.
    out = out_like(data.draw(dtypes), data.draw(st.sampled_from([None, (), (2, 3)])))
    check_op(call_op, "aten::scalar_tensor.out", aten.scalar_tensor.out, (value,), out=out)


def test_fill_long(call_op: Any) -> None:
    a = torch.empty(5, 1000, dtype=torch.float16)
    check_op(call_op, "aten::fill.Scalar_out", aten.fill.Scalar_out, (a, 0.1), out=a.new_empty(0))
    value = torch.tensor(-3, dtype=torch.int64)
    out = a.new_empty(0)
    check_op(call_op, "aten::fill.Tensor_out", aten.fill.Tensor_out, (a, value), out=out)


def test_fill_errors(call_op: Any) -> None:
    ints = torch.zeros(3, dtype=torch.int8)
    with raises(call_op, "value cannot be converted to type Char without overflow"):
        call_op("aten::fill.Scalar_out", ints, 300, out=ints.new_empty(0))
    with raises(call_op, "fill_ only supports 0-dimension value tensor but got tensor with 1"):
        call_op("aten::fill.Tensor_out", ints, torch.ones(1), out=ints.new_empty(0))
    with raises(call_op, "(?i)Expected out tensor to have dtype Char"):
        call_op("aten::fill.Scalar_out", ints, 1, out=torch.empty(0))
    with raises(call_op, "value cannot be converted to type Int without overflow"):
        call_op("aten::scalar_tensor.out", float("inf"), out=torch.empty(0, dtype=torch.int32))
