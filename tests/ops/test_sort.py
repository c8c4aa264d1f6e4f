"""aten::sort.values, aten::sort.values_stable and aten::topk.values against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, is_portable
from strategies import dtypes, make_tensor, seeds, shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def portable_only(call_op: Any, match: str) -> str | None:
    """Kiln's own messages are checked on the portable backend; ATen mode has libtorch's."""
    return match if is_portable(call_op) else None


@st.composite
def sort_inputs(draw: Any) -> tuple[torch.Tensor, int]:
    """A tensor with many ties (small integer values, or floats with nan/inf/signed zeros) and a
    dim, sometimes out of range."""
    dtype = draw(dtypes)
    shape = draw(shapes(0, 3, 0, 7))
    if draw(st.booleans()) and dtype != torch.bool:
        a = make_tensor(torch.int64, shape, draw(seeds), int_range=(-3, 3)).to(dtype)
    else:
        a = draw(tensors(dtype, shape, special=True))
    rank = max(a.dim(), 1)
    dim = draw(st.integers(-rank, rank - 1)) if draw(st.integers(0, 14)) else rank
    return a, dim


def outs(data: Any, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    values_dtype = dtype if data.draw(st.integers(0, 9)) else data.draw(dtypes)
    index_dtype = torch.int64 if data.draw(st.integers(0, 9)) else torch.int32
    return torch.empty(0, dtype=values_dtype), torch.empty(0, dtype=index_dtype)


def run_both(call_op: Any, name: str, torch_op: Any, args: tuple, kwargs: dict, data: Any) -> Any:
    """torch's (values, indices) and kiln's, or None after checking both raised."""
    values, indices = outs(data, args[0].dtype)
    try:
        expected = torch_op(*args, **kwargs, values=values.clone(), indices=indices.clone())
    except (RuntimeError, IndexError):
        with pytest.raises(kiln.KilnError):
            call_op(name, *args, out=(values, indices), **kwargs)
        return None
    got = call_op(name, *args, out=(values, indices), **kwargs)
    return expected, got


@SETTINGS
@given(data=st.data())
def test_sort_matches_torch(call_op: Any, data: Any) -> None:
    """CPU sort is stable in torch, so values and indices must both agree exactly."""
    a, dim = data.draw(sort_inputs())
    descending = data.draw(st.booleans())
    if data.draw(st.booleans()):
        name, op, kwargs = "aten::sort.values", aten.sort.values, {"descending": descending}
        args: tuple = (a, dim)
    else:
        stable = data.draw(st.sampled_from([None, True, False]))
        name, op = "aten::sort.values_stable", aten.sort.values_stable
        kwargs = {"stable": stable, "dim": dim, "descending": descending}
        args = (a,)
    both = run_both(call_op, name, op, args, kwargs, data)
    if both is None:
        return
    (ev, ei), (gv, gi) = both
    assert_same(gv, ev)
    assert_same(gi, ei)


@SETTINGS
@given(data=st.data())
def test_topk_matches_torch(call_op: Any, data: Any) -> None:
    """Tied elements may be picked in any order: values must agree, indices must point at them."""
    a, dim = data.draw(sort_inputs())
    size = (a.shape[dim] if a.dim() else 1) if -max(a.dim(), 1) <= dim < max(a.dim(), 1) else 2
    k = data.draw(st.integers(-1, size + 1)) if data.draw(st.integers(0, 9)) == 0 else size
    k = data.draw(st.integers(0, size)) if k == size else k
    largest, ordered = data.draw(st.booleans()), data.draw(st.booleans())
    kwargs = {"dim": dim, "largest": largest, "sorted": ordered}
    both = run_both(call_op, "aten::topk.values", aten.topk.values, (a, k), kwargs, data)
    if both is None:
        return
    (ev, ei), (gv, gi) = both
    if not ordered and a.dim():  # any order is allowed: compare both as sorted sets
        assert_same(gv.sort(dim=dim, stable=True).values, ev.sort(dim=dim, stable=True).values)
    else:
        assert_same(gv, ev)
    assert gi.dtype == torch.int64 and gi.shape == ei.shape
    if a.dim():
        torch.testing.assert_close(a.gather(dim, gi), gv, rtol=0, atol=0, equal_nan=True)
        if gi.numel():
            assert (gi.sort(dim=dim).values.diff(dim=dim) != 0).all(), "indices repeat"


def test_sort_nan_and_signed_zero_order(call_op: Any) -> None:
    nan, inf = float("nan"), float("inf")
    a = torch.tensor([3.0, nan, -0.0, 0.0, 1.0, -inf, nan])
    for descending in (False, True):
        out = (torch.empty(0), torch.empty(0, dtype=torch.int64))
        values, indices = call_op("aten::sort.values", a, -1, descending, out=out)
        expected = torch.sort(a, descending=descending, stable=True)
        torch.testing.assert_close(values, expected.values, equal_nan=True)
        assert torch.equal(indices, expected.indices)


def test_topk_largest_rows(call_op: Any) -> None:
    a = torch.randn(8, 300, generator=torch.Generator().manual_seed(1))
    out = (torch.empty(0), torch.empty(0, dtype=torch.int64))
    values, indices = call_op("aten::topk.values", a, 10, out=out)
    expected = torch.topk(a, 10)
    assert torch.equal(values, expected.values) and torch.equal(indices, expected.indices)
    values, indices = call_op("aten::topk.values", a, 5, 0, False, out=out)
    expected = torch.topk(a, 5, 0, False)
    assert torch.equal(values, expected.values) and torch.equal(indices, expected.indices)


@pytest.mark.parametrize(
    ("a", "k", "match"),
    [
        (torch.ones(2, 3), 4, "selected index k out of range"),
        (torch.ones(2, 3), -1, "selected index k out of range"),
        (torch.ones(3, dtype=torch.bool), 1, "bool"),
    ],
)
def test_topk_errors(call_op: Any, a: torch.Tensor, k: int, match: str) -> None:
    values, indices = torch.empty(0, dtype=a.dtype), torch.empty(0, dtype=torch.int64)
    with pytest.raises(RuntimeError):
        aten.topk.values(a, k, values=values, indices=indices)
    with pytest.raises(kiln.KilnError, match=portable_only(call_op, match)):
        call_op("aten::topk.values", a, k, out=(values, indices))
