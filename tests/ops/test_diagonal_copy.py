"""aten::diagonal_copy.out against torch: offsets on either side of (and beyond) the main
diagonal, any pair of dims, every dtype."""

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
DIAGONAL = "aten::diagonal_copy.out"


@SETTINGS
@given(data=st.data())
def test_diagonal_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 5)))
    extent = max(a.dim(), 1)
    dim1 = data.draw(st.integers(-extent - 1, extent))
    dim2 = data.draw(st.integers(-extent - 1, extent))
    offset = data.draw(st.one_of(st.integers(-6, 6), st.sampled_from([-(2**62), 2**62])))
    try:
        shape = tuple(aten.diagonal_copy(a, offset, dim1, dim2).shape)
    except (RuntimeError, IndexError):
        shape = None
    out = data.draw(out_tensors(a.dtype, shape or (0,)))
    check_op(call_op, DIAGONAL, aten.diagonal_copy.out, (a, offset, dim1, dim2), out=out)


@pytest.mark.parametrize(("offset", "dims"), [(0, (0, 1)), (1, (0, -1)), (-2, (2, 0))])
def test_diagonal_copy_of_a_known_tensor(call_op: Any, offset: int, dims: tuple[int, int]) -> None:
    # Every backend compares at least these with torch, whatever the random draws above refuse.
    a = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5)
    out = torch.empty(0)
    check_op(call_op, DIAGONAL, aten.diagonal_copy.out, (a, offset, *dims), out=out)


@pytest.mark.parametrize(
    ("shape", "dims", "text"),
    [
        ((2, 3), (1, 1), "diagonal dimensions cannot be identical 1, 1"),
        ((2, 3), (0, -2), "diagonal dimensions cannot be identical 0, -2"),
        (
            (3,),
            (0, 1),
            r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)",
        ),
        ((), (0, -1), "cannot be identical"),
    ],
)
def test_diagonal_copy_refusals(
    call_op: Any, shape: tuple[int, ...], dims: tuple[int, int], text: str
) -> None:
    with pytest.raises((RuntimeError, IndexError)):
        aten.diagonal_copy(torch.ones(shape), 0, *dims)
    with raises(call_op, text):
        call_op(DIAGONAL, torch.ones(shape), 0, *dims, out=torch.empty(0))
