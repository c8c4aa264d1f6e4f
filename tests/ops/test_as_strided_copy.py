"""aten::as_strided_copy.out against torch: any sizes, strides and storage offsets over a fresh
tensor (a Kiln tensor's data is its storage, as a fresh torch tensor's is), and the refusals."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
from strategies import out_tensors, shapes, tensors

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
AS_STRIDED = "aten::as_strided_copy.out"


@SETTINGS
@given(data=st.data())
def test_as_strided_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 3, 0, 6)))
    rank = data.draw(st.integers(0, 4))
    size = [data.draw(st.integers(0, 4)) for _ in range(rank)]
    stride = [data.draw(st.integers(0, 5)) for _ in range(rank)]
    if data.draw(st.integers(0, 9)) == 0:  # a wrong rank, a negative size or stride
        broken = data.draw(st.sampled_from(["rank", "size", "stride"]))
        if broken == "rank":
            stride.append(1)
        elif rank:
            (size if broken == "size" else stride)[0] = -1
    offset = data.draw(st.one_of(st.none(), st.integers(0, 8), st.just(-1)))
    try:
        shape = tuple(aten.as_strided_copy(a, size, stride, offset).shape)
    except RuntimeError:
        shape = None
    out = data.draw(out_tensors(a.dtype, shape or (0,)))
    check_op(call_op, AS_STRIDED, aten.as_strided_copy.out, (a, size, stride, offset), out=out)


@pytest.mark.parametrize(
    ("size", "stride", "offset"),
    [([3, 4], [4, 1], None), ([4, 3], [1, 4], 0), ([2, 2, 2], [0, 3, 1], 5), ([], [], 11)],
)
def test_as_strided_copy_views(call_op: Any, size: list, stride: list, offset: Any) -> None:
    a = torch.arange(12, dtype=torch.int32)
    check_op(
        call_op,
        AS_STRIDED,
        aten.as_strided_copy.out,
        (a, size, stride, offset),
        out=torch.empty(0, dtype=torch.int32),
    )


@pytest.mark.parametrize(
    ("size", "stride", "offset", "text"),
    [
        ([3, 2], [1], None, "mismatch in length of strides and shape"),
        ([3, 2], [1, -3], None, r"Negative strides are not supported .* \[1, -3\]"),
        ([3, -2], [1, 3], None, "negative dimension -2"),
        ([3, 2], [1, 3], -1, "invalid storage offset -1"),
        ([], [], 12, "reach past the 12 elements of self"),
        ([4, 3], [3, 1], 1, "reach past the 12 elements of self"),
        ([2], [2**62], None, "reach past"),
    ],
)
def test_as_strided_copy_refusals(
    call_op: Any, size: list, stride: list, offset: Any, text: str
) -> None:
    a = torch.arange(12.0)
    with pytest.raises(RuntimeError):
        aten.as_strided_copy(a, size, stride, offset)
    with raises(call_op, text):
        call_op(AS_STRIDED, a, size, stride, offset, out=torch.empty(0))
