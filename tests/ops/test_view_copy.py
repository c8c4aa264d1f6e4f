"""aten::view_copy.out and _unsafe_view.out against torch."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import out_tensors, tensors

import kiln

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


@st.composite
def target_sizes(draw: Any, numel: int) -> list[int]:
    """A size list for `numel` elements (factors of it, maybe with one -1), or a random one that
    may be invalid (wrong numel, two -1s, negative sizes)."""
    if draw(st.integers(0, 4)) == 0:
        return draw(st.lists(st.integers(-2, 6), max_size=4))
    sizes: list[int] = []
    remaining = numel
    for _ in range(draw(st.integers(0, 3))):
        divisors = [d for d in range(1, 7) if remaining % d == 0] if remaining else [0, 1, 2]
        side = draw(st.sampled_from(divisors))
        sizes.append(side)
        remaining = remaining // side if side else 0
    if remaining != 1 or draw(st.booleans()):
        sizes.append(remaining)
    sizes = draw(st.permutations(sizes))
    if sizes and draw(st.booleans()):
        sizes[draw(st.integers(0, len(sizes) - 1))] = -1
    return list(sizes)


@SETTINGS
@given(data=st.data())
def test_view_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors())
    size = data.draw(target_sizes(a.numel()))
    valid_shape = None
    try:
        valid_shape = tuple(a.view(size).shape)
    except RuntimeError:
        pass
    out = data.draw(out_tensors(a.dtype, valid_shape if valid_shape is not None else (0,)))
    check_op(call_op, "aten::view_copy.out", aten.view_copy.out, (a, size), out=out)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_unsafe_view_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors())
    size = data.draw(target_sizes(a.numel()))
    valid_shape = None
    try:
        valid_shape = tuple(a.view(size).shape)
    except RuntimeError:
        pass
    out = data.draw(out_tensors(a.dtype, valid_shape if valid_shape is not None else (0,)))
    check_op(call_op, "aten::_unsafe_view.out", aten._unsafe_view.out, (a, size), out=out)


@pytest.mark.parametrize(
    ("shape", "size", "match"),
    [
        ((2, 3), [4, -1], r"shape '\[4, -1\]' is invalid for input of size 6"),
        ((2, 3), [-1, -1], "only one dimension can be inferred"),
        ((2, 3), [-2, 3], "invalid shape dimension -2"),
        ((0, 3), [0, -1], "ambiguous"),
        ((2, 3), [5], "invalid for input of size 6"),
        ((4,), [2**62, 2**62, -1], "invalid for input of size 4"),
    ],
)
def test_view_copy_errors(call_op: Any, shape: tuple, size: list[int], match: str) -> None:
    a = torch.ones(shape)
    with pytest.raises(RuntimeError):
        a.view(size)
    with pytest.raises(kiln.KilnError, match=match):
        call_op("aten::view_copy.out", a, size, out=torch.empty(0))


def test_view_copy_infers_and_copies(call_op: Any) -> None:
    a = torch.arange(24.0).reshape(2, 3, 4)
    out = call_op("aten::view_copy.out", a, [4, -1], out=torch.empty(0))
    assert out.shape == (4, 6) and math.isclose(float(out[3, 5]), 23.0)
    assert out.data_ptr() != a.data_ptr()


def test_view_copy_out_dtype_must_match(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="(?i)Expected out tensor to have dtype float"):
        call_op("aten::view_copy.out", torch.ones(4), [2, 2], out=torch.empty(0, dtype=torch.int8))
