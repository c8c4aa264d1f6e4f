"""aten::unfold_copy.out against torch: windows of any size and step along any dim (0-dim
tensors unfold as one element), every dtype, and the refusals."""

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
UNFOLD = "aten::unfold_copy.out"


@SETTINGS
@given(data=st.data())
def test_unfold_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 6)))
    extent = max(a.dim(), 1)
    dim = data.draw(st.integers(-extent - 1, extent))
    size = data.draw(st.integers(-1, 7))
    step = data.draw(st.sampled_from([1, 1, 2, 3, 7, 0]))
    try:
        shape = tuple(aten.unfold_copy(a, dim, size, step).shape)
    except (RuntimeError, IndexError):
        shape = None
    out = data.draw(out_tensors(a.dtype, shape or (0,)))
    check_op(call_op, UNFOLD, aten.unfold_copy.out, (a, dim, size, step), out=out)


@pytest.mark.parametrize(
    ("shape", "args", "text"),
    [
        ((2, 5), (1, 6, 2), "maximum size for tensor at dimension 1 is 5 but size is 6"),
        ((2, 5), (-1, 6, 2), "maximum size for tensor at dimension 1 is 5 but size is 6"),
        ((2, 5), (1, 2, 0), "step is 0 but must be > 0"),
        ((2, 5), (1, -1, 1), "size is -1 but must be >= 0"),
        ((), (0, 2, 1), "maximum size for tensor at dimension 0 is 1 but size is 2"),
        ((2, 5), (2, 1, 1), r"Dimension out of range \(expected to be in range of \[-2, 1\]"),
    ],
)
def test_unfold_copy_refusals(
    call_op: Any, shape: tuple[int, ...], args: tuple[int, int, int], text: str
) -> None:
    with pytest.raises((RuntimeError, IndexError), match=text):
        aten.unfold_copy(torch.ones(shape), *args)
    with raises(call_op, text):
        call_op(UNFOLD, torch.ones(shape), *args, out=torch.empty(0))
