"""aten::permute_copy.out, transpose_copy.int_out and t_copy.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import out_tensors, shapes, tensors

import kiln

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


@SETTINGS
@given(data=st.data())
def test_permute_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 5, 0, 4)))
    perm = data.draw(st.permutations(list(range(a.dim()))))
    dims = [d - a.dim() if data.draw(st.booleans()) else d for d in perm]
    expected = a.permute(dims).shape
    out = data.draw(out_tensors(a.dtype, tuple(expected)))
    check_op(call_op, "aten::permute_copy.out", aten.permute_copy.out, (a, dims), out=out)


@pytest.mark.parametrize(
    ("shape", "dims"),
    [((64, 128, 256), (0, 2, 1)), ((33, 70), (1, 0)), ((3, 40, 50, 2), (2, 1, 3, 0))],
)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float16, torch.float32, torch.int64])
def test_permute_copy_large_tiles(call_op: Any, shape: tuple, dims: tuple, dtype: Any) -> None:
    a = torch.arange(torch.Size(shape).numel()).view(shape).to(dtype)
    out = call_op("aten::permute_copy.out", a, list(dims), out=torch.empty(0, dtype=dtype))
    torch.testing.assert_close(out, a.permute(dims).contiguous(), rtol=0, atol=0)


@pytest.mark.parametrize(
    ("dims", "match"),
    [([0], "number of dim"), ([0, 0], "duplicate dims"), ([0, 2], "out of range")],
)
def test_permute_copy_errors(call_op: Any, dims: list, match: str) -> None:
    with pytest.raises(kiln.KilnError, match=match):
        call_op("aten::permute_copy.out", torch.ones(2, 3), dims, out=torch.empty(0))


@SETTINGS
@given(data=st.data())
def test_transpose_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 5)))
    extent = max(a.dim(), 1)
    dim0 = data.draw(st.integers(-extent - 1, extent))
    dim1 = data.draw(st.integers(-extent, extent - 1))
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(
        call_op,
        "aten::transpose_copy.int_out",
        aten.transpose_copy.int_out,
        (a, dim0, dim1),
        out=out,
    )


@SETTINGS
@given(data=st.data())
def test_t_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 3, 0, 6)))
    out = data.draw(out_tensors(a.dtype, tuple(reversed(a.shape))))
    check_op(call_op, "aten::t_copy.out", aten.t_copy.out, (a,), out=out)


def test_t_copy_rejects_3d(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="t\\(\\) expects a tensor with <= 2 dimensions"):
        call_op("aten::t_copy.out", torch.ones(1, 2, 3), out=torch.empty(0))
