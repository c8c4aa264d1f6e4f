"""et_copy::_h2d_copy.out and _d2h_copy.out against torch's clone: ExecuTorch's copies between host
and device memory are plain copies in Kiln, whose tensors all live in host memory (same dtype, out
resized to self's shape, self's layout)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, raises
from strategies import dtypes, shapes, tensors

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

COPIES = ["et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out"]


@pytest.mark.parametrize("op", COPIES)
@SETTINGS
@given(data=st.data())
def test_device_copy_matches_clone(call_op: Any, op: str, data: Any) -> None:
    a = data.draw(tensors(dtypes, st.one_of(shapes(0, 3, 0, 5), shapes(4, 4, 1, 4))))
    if a.dim() == 4 and data.draw(st.booleans()):
        a = a.contiguous(memory_format=torch.channels_last)
    expected = a.clone(memory_format=torch.preserve_format)
    presized = data.draw(st.booleans()) or a.dim() == 4
    out = torch.empty_like(a) if presized else torch.empty(0, dtype=a.dtype)
    result = call_op(op, a, out=out)
    assert result is out
    assert_same(result, expected)
    assert result.stride() == expected.stride() or result.numel() <= 1


@pytest.mark.parametrize("op", COPIES)
def test_device_copy_refusals(call_op: Any, op: str) -> None:
    a = torch.ones(2, 3, 4, 5)
    with raises(call_op, "Expected out tensor to have dtype Float, but got Double"):
        call_op(op, a, out=torch.empty(0, dtype=torch.float64))
    with raises(call_op, r"dim_order is None, which keeps self's dim order \[0, 2, 3, 1\]"):
        call_op(op, a.contiguous(memory_format=torch.channels_last), out=torch.empty(2, 3, 4, 5))
