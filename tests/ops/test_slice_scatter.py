"""aten::slice_scatter.out and select_scatter.out against torch: self with a slice (a strided range
of a dim) or a select (one index, the dim dropped) replaced by src, converted to self's dtype."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
from strategies import dtypes, make_tensor, out_tensors, seeds, shapes, tensors

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
SLICE = "aten::slice_scatter.out"
SELECT = "aten::select_scatter.out"
bounds = st.one_of(st.none(), st.integers(-8, 8), st.sampled_from([-(2**62), 2**62]))


def src_for(data: Any, part: torch.Tensor | None) -> torch.Tensor:
    """src of the part's shape (sometimes another dtype, rarely a wrong shape), maybe channels
    last."""
    shape = tuple(part.shape) if part is not None else (2,)
    if data.draw(st.integers(0, 9)) == 0:
        shape = (*shape[:-1], shape[-1] + 1) if shape else (1,)
    dtype = data.draw(dtypes)
    # Float values beyond an integer's range convert in a platform-defined way in C++.
    src = make_tensor(dtype, shape, data.draw(seeds), magnitude=20.0)
    if src.dim() == 4 and data.draw(st.booleans()):
        src = src.contiguous(memory_format=torch.channels_last)
    return src


@SETTINGS
@given(data=st.data())
def test_slice_scatter_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 6)))
    extent = max(a.dim(), 1)
    dim = data.draw(st.integers(-extent - 1, extent))
    start, end = data.draw(bounds), data.draw(bounds)
    step = data.draw(st.sampled_from([1, 1, 2, 3, 7, 0]))
    try:
        part = aten.slice_copy.Tensor(a, dim, start, end, step)
    except (RuntimeError, IndexError):
        part = None
    src = src_for(data, part)
    if a.dtype != src.dtype and not a.is_floating_point() and src.is_floating_point():
        src = src.round()
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, SLICE, aten.slice_scatter.out, (a, src, dim, start, end, step), out=out)


@SETTINGS
@given(data=st.data())
def test_select_scatter_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 5)))
    extent = max(a.dim(), 1)
    dim = data.draw(st.integers(-extent - 1, extent))
    index = data.draw(st.integers(-6, 6))
    try:
        part = aten.select_copy.int(a, dim, index)
    except (RuntimeError, IndexError):
        part = None
    src = src_for(data, part)
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, SELECT, aten.select_scatter.out, (a, src, dim, index), out=out)


def test_scatters_on_fixed_valid_inputs(call_op: Any) -> None:
    """A valid case of each op, compared on every backend whatever the random draws refuse."""
    a = torch.arange(12.0).reshape(3, 4)
    check_op(call_op, SELECT, aten.select_scatter.out, (a, torch.full((4,), -1.0), 0, 1), out=a * 0)
    check_op(
        call_op, SLICE, aten.slice_scatter.out, (a, torch.full((3, 2), -1.0), 1, 1, 4, 2), out=a * 0
    )


@pytest.mark.parametrize(
    ("op", "args", "text"),
    [
        (SLICE, (torch.ones(2, 2), 1, 0, 1, 0), "slice step must be positive"),
        (SLICE, (torch.ones(3, 3), 1, 0, 2), r"src size = \[3, 3\], slice size = \[3, 2\]"),
        (SELECT, (torch.ones(2), 1, 3), "index 3 out of range for tensor of size"),
        (SELECT, (torch.ones(3, 1), 1, 0), r"src size = \[3, 1\], slice size = \[3\]"),
    ],
)
def test_scatter_refusals(call_op: Any, op: str, args: tuple[Any, ...], text: str) -> None:
    self = torch.zeros(3, 3)
    torch_op = aten.slice_scatter if op == SLICE else aten.select_scatter
    with pytest.raises((RuntimeError, IndexError)):
        torch_op(self, *args)
    with raises(call_op, text):
        call_op(op, self, *args, out=torch.empty(0))


def test_scatter_0_dim_self_is_refused(call_op: Any) -> None:
    with raises(call_op, r"slice\(\) cannot be applied to a 0-dim tensor"):
        call_op(SLICE, torch.tensor(1.0), torch.tensor(2.0), out=torch.empty(0))
    with raises(call_op, r"select\(\) cannot be applied to a 0-dim tensor"):
        call_op(SELECT, torch.tensor(1.0), torch.tensor(2.0), 0, 0, out=torch.empty(0))
