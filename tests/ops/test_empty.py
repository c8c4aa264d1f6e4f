"""aten::empty.out against torch: out takes the shape and keeps its dtype; its contents are
unspecified, so the comparison zeroes them first (torch.testing.assert_close then compares shape
and dtype, and differential_log records the check)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import raises
from strategies import dtypes

import kiln

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
EMPTY = "aten::empty.out"


@SETTINGS
@given(size=st.lists(st.integers(0, 5), max_size=5), dtype=dtypes, presized=st.booleans())
def test_empty_takes_the_shape(
    call_op: Any, size: list[int], dtype: torch.dtype, presized: bool
) -> None:
    shape = tuple(size) if presized else (0,)
    out = torch.ones(shape, dtype=dtype)
    expected = aten.empty.out(size, out=torch.ones(shape, dtype=dtype))
    result = call_op(EMPTY, size, out=out)
    assert result is out
    torch.testing.assert_close(result.zero_(), expected.zero_(), rtol=0, atol=0)


def test_empty_refusals(call_op: Any) -> None:
    # (libtorch words the negative size as a numel overflow or a negative dimension)
    with pytest.raises(kiln.KilnError, match="negative dimension|overflow"):
        call_op(EMPTY, [2, -1], out=torch.empty(0))
    for fmt in (torch.contiguous_format, torch.channels_last, torch.preserve_format):
        with raises(call_op, "'memory_format' argument is incompatible with 'out'"):
            call_op(EMPTY, [1, 2, 3, 4], memory_format=fmt, out=torch.empty(0))
