"""aten::split_copy.Tensor_out and split_with_sizes_copy.out (Tensor[] outs) against torch.

The Python binding passes the tensors of a Tensor[] argument as fixed-shape views, so these
tests hand the kernels outs of the result shapes (a kernel still resizes outs it can resize)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same
from strategies import shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def check_split(call_op: Any, name: str, a: torch.Tensor, arg: Any, dim: int, count: int) -> None:
    """torch.split's pieces (or its error) against the backend writing `count` outs."""
    try:
        expected = list(torch.split(a, arg, dim))
        if len(expected) != count:
            raise RuntimeError("out count")
        if isinstance(arg, int) and arg < 0:
            raise RuntimeError("negative split size")
    except (RuntimeError, IndexError, ValueError):
        with pytest.raises(kiln.KilnError):
            call_op(name, a, arg, dim, out=([torch.empty(0, dtype=a.dtype) for _ in range(count)],))
        return
    outs = [torch.empty(e.shape, dtype=a.dtype) for e in expected]
    before = a.clone()
    call_op(name, a, arg, dim, out=(outs,))
    torch.testing.assert_close(a, before, rtol=0, atol=0, equal_nan=True)
    for got, want in zip(outs, expected, strict=True):
        assert_same(got, want.contiguous())


@SETTINGS
@given(data=st.data())
def test_split_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 3, 0, 6)))
    extent = max(a.dim(), 1)
    dim = data.draw(st.integers(-extent - 1, extent))
    split_size = data.draw(st.integers(-1, 7))
    n = a.shape[dim] if -a.dim() <= dim < a.dim() else 1
    pieces = 1 if n == 0 or split_size <= 0 else -(-n // split_size)
    count = pieces + data.draw(st.sampled_from([0, 0, 0, 0, 1, -1]))
    check_split(call_op, "aten::split_copy.Tensor_out", a, split_size, dim, max(count, 0))


@SETTINGS
@given(data=st.data())
def test_split_with_sizes_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 3, 0, 6)))
    extent = max(a.dim(), 1)
    dim = data.draw(st.integers(-extent - 1, extent))
    n = a.shape[dim] if -a.dim() <= dim < a.dim() else 0
    sizes = []
    while sum(sizes) < n:
        sizes.append(data.draw(st.integers(0, n - sum(sizes))))
    if data.draw(st.integers(0, 7)) == 0:
        sizes.append(data.draw(st.integers(-1, 2)))  # a wrong total or a negative size
    count = len(sizes) + data.draw(st.sampled_from([0, 0, 0, 0, 1]))
    check_split(call_op, "aten::split_with_sizes_copy.out", a, sizes, dim, count)


def test_split_copy_presized_outs(call_op: Any) -> None:
    a = torch.arange(10, dtype=torch.int16).view(2, 5)
    outs = [
        torch.empty(2, 2, dtype=torch.int16),
        torch.empty(2, 2, dtype=torch.int16),
        torch.empty(2, 1, dtype=torch.int16),
    ]
    call_op("aten::split_copy.Tensor_out", a, 2, 1, out=(outs,))
    for got, want in zip(outs, a.split(2, 1), strict=True):
        torch.testing.assert_close(got, want.contiguous(), rtol=0, atol=0)


def test_split_copy_errors(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="out= argument of size 3"):
        call_op("aten::split_copy.Tensor_out", torch.ones(5), 2, out=([torch.empty(0)] * 2,))
    with pytest.raises(kiln.KilnError, match="split_size can only be 0"):
        call_op("aten::split_copy.Tensor_out", torch.ones(5), 0, out=([torch.empty(0)],))
    with pytest.raises(kiln.KilnError, match="sum exactly to 5"):
        call_op(
            "aten::split_with_sizes_copy.out",
            torch.ones(5),
            [2, 2],
            out=([torch.empty(0), torch.empty(0)],),
        )
    with pytest.raises(kiln.KilnError, match="Expected out tensor to have dtype"):
        call_op(
            "aten::split_with_sizes_copy.out",
            torch.ones(5),
            [2, 3],
            out=([torch.empty(0), torch.empty(0, dtype=torch.int64)],),
        )
