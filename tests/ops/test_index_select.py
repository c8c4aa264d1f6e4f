"""aten::index_select.out and aten::embedding.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, is_portable
from strategies import dtypes, make_tensor, out_tensors, seeds, shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def portable_only(call_op: Any, match: str) -> str | None:
    """Kiln's own messages are checked on the portable backend; ATen mode has libtorch's."""
    return match if is_portable(call_op) else None


index_dtypes = st.sampled_from([torch.int64, torch.int32])


@st.composite
def index_tensors(draw: Any, size: int, shape: tuple, *, negative: bool = False) -> torch.Tensor:
    """Indices for a dim of `size`: in range, sometimes negative or out of range."""
    low = -size if negative else 0
    if draw(st.integers(0, 9)) == 0:
        low, high = -size - 2, size + 2
    else:
        high = max(size - 1, low)
    if size == 0 and high < low + 1:
        high = low
    values = make_tensor(torch.int64, shape, draw(seeds), int_range=(low, high))
    return values.to(draw(index_dtypes))


@SETTINGS
@given(data=st.data())
def test_index_select_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(dtypes, shapes(0, 4)))
    dim = data.draw(st.integers(-max(a.dim(), 1), max(a.dim(), 1) - 1))
    size = a.shape[dim] if a.dim() else 1
    index_shape = data.draw(st.sampled_from([(), (0,), (1,), (3,), (7,)]))
    index = data.draw(index_tensors(size, index_shape))
    out = data.draw(out_tensors(a.dtype, (0,)))
    check_op(call_op, "aten::index_select.out", aten.index_select.out, (a, dim, index), out=out)


@pytest.mark.parametrize(
    ("self_shape", "dim", "index", "match"),
    [
        ((2, 3), 1, torch.tensor([3]), "index 3 is out of bounds"),
        ((2, 3), 1, torch.tensor([-1]), "index -1 is out of bounds"),
        ((2, 3), 1, torch.tensor([[0]]), "supposed to be a vector"),
        ((2, 3), 1, torch.tensor([0], dtype=torch.int16), "int32 or int64"),
        ((2, 3), 1, torch.tensor([0.0]), "int32 or int64"),
        ((2, 3), 2, torch.tensor([0]), "Dimension out of range"),
        ((), 0, torch.tensor([0, 0]), "only 1 value"),
        ((2, 0), 1, torch.tensor([0]), "out of bounds"),
    ],
)
def test_index_select_errors(
    call_op: Any, self_shape: tuple, dim: int, index: torch.Tensor, match: str
) -> None:
    a = torch.ones(self_shape)
    with pytest.raises((RuntimeError, IndexError)):
        aten.index_select.out(a, dim, index, out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match=portable_only(call_op, match)):
        call_op("aten::index_select.out", a, dim, index, out=torch.empty(0))


def test_index_select_out_dtype_and_static_shape(call_op: Any) -> None:
    a = torch.arange(6.0).reshape(2, 3)
    index = torch.tensor([2, 0])
    with pytest.raises(kiln.KilnError):
        call_op("aten::index_select.out", a, 1, index, out=torch.empty(0, dtype=torch.float64))
    out = call_op("aten::index_select.out", a, 1, index, out=torch.empty(2, 2))
    assert out.tolist() == [[2.0, 0.0], [5.0, 3.0]]


@SETTINGS
@given(data=st.data())
def test_embedding_matches_torch(call_op: Any, data: Any) -> None:
    weight = data.draw(tensors(dtypes, shapes(2, 2, 0, 6)))
    index_shape = data.draw(shapes(0, 3))
    indices = data.draw(index_tensors(weight.shape[0], index_shape))
    padding_idx = data.draw(st.sampled_from([-1, 0, 2]))
    out = data.draw(out_tensors(weight.dtype, (0,)))
    check_op(
        call_op,
        "aten::embedding.out",
        aten.embedding.out,
        (weight, indices, padding_idx, data.draw(st.booleans())),
        out=out,
    )


@pytest.mark.parametrize(
    ("weight_shape", "indices", "match"),
    [
        ((4, 3), torch.tensor([4]), "index out of range"),
        ((4, 3), torch.tensor([-1]), "index out of range"),
        ((4,), torch.tensor([0]), "must be 2-D"),
        ((4, 3, 2), torch.tensor([0]), "must be 2-D"),
        ((4, 3), torch.tensor([0.0]), "int32 or int64"),
    ],
)
def test_embedding_errors(
    call_op: Any, weight_shape: tuple, indices: torch.Tensor, match: str
) -> None:
    weight = torch.ones(weight_shape)
    with pytest.raises((RuntimeError, IndexError)):
        aten.embedding.out(weight, indices, out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match=portable_only(call_op, match)):
        call_op("aten::embedding.out", weight, indices, out=torch.empty(0))
