"""aten::constant_pad_nd.out against torch: positive and negative pads, every dtype."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import ALL_DTYPES, make_tensor, out_tensors, scalars_for, shapes

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


@SETTINGS
@given(data=st.data())
def test_constant_pad_nd_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    shape = data.draw(shapes(0, 4, 0, 4))
    x = make_tensor(dtype, shape, data.draw(st.integers(0, 2**31 - 1)))
    pairs = data.draw(st.integers(0, len(shape)))
    pad = [data.draw(st.integers(-3, 3)) for _ in range(2 * pairs)]
    value = data.draw(scalars_for(dtype))
    expected_shape = list(shape)
    for i in range(pairs):
        expected_shape[len(shape) - 1 - i] += pad[2 * i] + pad[2 * i + 1]
    out_shape = tuple(expected_shape) if min(expected_shape, default=0) >= 0 else None
    out = data.draw(out_tensors(dtype, out_shape or (0,), other_dtype_p=0.1))
    check_op(
        call_op, "aten::constant_pad_nd.out", aten.constant_pad_nd.out, (x, pad, value), out=out
    )


@pytest.mark.parametrize(
    ("dtype", "value"),
    [
        (torch.int32, 1.7),
        (torch.uint8, -1),
        (torch.bool, 2),
        (torch.int8, 300),
        (torch.float16, 1e6),
        (torch.int32, float("inf")),
        (torch.float32, float("nan")),
    ],
)
def test_fill_value_conversion(call_op: Any, dtype: torch.dtype, value: Any) -> None:
    x = make_tensor(dtype, (2, 3), 1)
    check_op(
        call_op,
        "aten::constant_pad_nd.out",
        aten.constant_pad_nd.out,
        (x, [1, 1], value),
        out=torch.empty(0, dtype=dtype),
    )


@pytest.mark.parametrize(
    ("shape", "pad"),
    [((2, 3), [1, 1, 1]), ((2, 3), [1, 1, 1, 1, 1, 1]), ((), [1, 1]), ((), [])],
)
def test_pad_lists(call_op: Any, shape: tuple[int, ...], pad: list[int]) -> None:
    x = make_tensor(torch.float32, shape, 2)
    check_op(
        call_op, "aten::constant_pad_nd.out", aten.constant_pad_nd.out, (x, pad), out=torch.empty(0)
    )
