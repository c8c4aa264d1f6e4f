"""dim_order_ops::_empty_dim_order.out against torch.empty: out gets the size and the layout the
dim order names (contiguous for None), in its dtype. The values are unspecified, so the tests
compare shape, dtype and strides; an out that needs no resize must keep its values."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, raises
from strategies import dtypes, shapes

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

EMPTY = "dim_order_ops::_empty_dim_order.out"
CHANNELS_LAST = {
    4: ([0, 2, 3, 1], torch.channels_last),
    5: ([0, 2, 3, 4, 1], torch.channels_last_3d),
}


def assert_layout(actual: torch.Tensor, expected: torch.Tensor) -> None:
    """Same dtype, shape and strides on every dim with more than one element."""
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if expected.numel():
        for d, side in enumerate(expected.shape):
            if side > 1:
                assert actual.stride(d) == expected.stride(d), (actual.stride(), expected.stride())


@SETTINGS
@given(data=st.data())
def test_empty_dim_order_matches_torch(call_op: Any, data: Any) -> None:
    size = list(data.draw(st.one_of(shapes(0, 3, 0, 4), shapes(4, 5, 0, 4))))
    dtype = data.draw(dtypes)
    choice = data.draw(st.sampled_from(["none", "contiguous", "channels_last"]))
    dim_order: list[int] | None = None
    fmt = torch.contiguous_format
    if choice == "contiguous":
        dim_order = list(range(len(size)))
    elif choice == "channels_last" and len(size) in CHANNELS_LAST:
        dim_order, fmt = CHANNELS_LAST[len(size)]
    expected = torch.empty(size, dtype=dtype, memory_format=fmt)
    if data.draw(st.booleans()):
        # Pre-sized in the layout: nothing to resize, and the values stay.
        out = torch.zeros(size, dtype=dtype).contiguous(memory_format=fmt)
        result = call_op(EMPTY, size, dim_order=dim_order, out=out)
        assert result is out
        assert_layout(result, expected)
        assert_same(result, torch.zeros(size, dtype=dtype))
    elif fmt == torch.contiguous_format:
        out = torch.empty(0, dtype=dtype)
        result = call_op(EMPTY, size, dim_order=dim_order, out=out)
        assert result is out
        assert_layout(result, expected)


def test_empty_dim_order_resizes_keeping_the_layout(call_op: Any) -> None:
    out = torch.zeros(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
    result = call_op(EMPTY, [3, 5, 2, 2], dim_order=[0, 2, 3, 1], out=out)
    assert_layout(result, torch.empty(3, 5, 2, 2, memory_format=torch.channels_last))


@pytest.mark.parametrize(
    ("size", "dim_order", "channels_last", "text"),
    [
        ([2, 3, 4, 5], [0, 2, 3, 1], False, r"asks for \[0, 2, 3, 1\]"),
        ([2, 3, 4, 5], None, True, r"out has dim order \[0, 2, 3, 1\], but dim_order None"),
        ([2, 3], [0, 0], False, r"dim_order \[0, 0\] is not a permutation"),
        ([2, 3], [0, 1, 2], False, "is not a permutation of the 2 dims"),
        ([2, -1], None, False, "negative dimension -1"),
    ],
)
def test_empty_dim_order_refusals(
    call_op: Any, size: list[int], dim_order: Any, channels_last: bool, text: str
) -> None:
    out = torch.zeros(2, 3, 4, 5)
    if channels_last:
        out = out.contiguous(memory_format=torch.channels_last)
    with raises(call_op, text):
        call_op(EMPTY, size, dim_order=dim_order, out=out)
