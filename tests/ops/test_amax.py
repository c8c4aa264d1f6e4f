"""aten::amax.out and aten::amin.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import ALL_DTYPES, dtypes, make_tensor, out_tensors, shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
OPS = [("aten::amax.out", aten.amax.out), ("aten::amin.out", aten.amin.out)]


@st.composite
def dim_lists(draw: Any, rank: int) -> list[int]:
    """[] (every dim) or a list of dims, negative ones too, sometimes repeated or out of range."""
    extent = max(rank, 1)
    if draw(st.integers(0, 9)) == 0:
        return draw(st.lists(st.integers(-extent - 1, extent), max_size=3))
    dims = draw(st.lists(st.integers(0, extent - 1), unique=True, max_size=extent))
    return [d - extent if draw(st.booleans()) else d for d in dims]


@pytest.mark.parametrize(("name", "torch_op"), OPS)
@SETTINGS
@given(data=st.data())
def test_amax_amin_match_torch(call_op: Any, name: str, torch_op: Any, data: Any) -> None:
    a = data.draw(tensors(dtypes, shapes(0, 4, 0, 5)))
    dim = data.draw(dim_lists(a.dim()))
    out = data.draw(out_tensors(a.dtype, (), other_dtype_p=0.1))
    check_op(call_op, name, torch_op, (a, dim, data.draw(st.booleans())), out=out)


@pytest.mark.parametrize(("name", "torch_op"), OPS)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_amax_amin_long_rows_and_columns(
    call_op: Any, name: str, torch_op: Any, dtype: torch.dtype
) -> None:
    for shape, dim in [((3, 1000), [1]), ((1000, 3), [0]), ((6, 300, 5), [0, 2]), ((40, 40), [])]:
        a = make_tensor(dtype, shape, 9, special=True)
        check_op(call_op, name, torch_op, (a, dim, False), out=torch.empty(0, dtype=dtype))


@pytest.mark.parametrize(("name", "torch_op"), OPS)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("rows", [1, 3, 6, 1027])
def test_amax_amin_columns_in_groups_of_rows(
    call_op: Any, name: str, torch_op: Any, dtype: torch.dtype, rows: int
) -> None:
    # Columns pick among four rows at a time, a last group of fewer repeating its first row;
    # 37 columns are vectors and a tail. A NaN in the last row, infinities, and a column of ties.
    a = make_tensor(dtype, (rows, 37), 5, int_range=(-50, 50))
    a[:, 20] = a[0, 20]
    if dtype.is_floating_point:
        a[rows - 1, 0] = float("nan")
        a[rows // 2, 9] = float("inf")
        a[0, 17] = -float("inf")
    check_op(call_op, name, torch_op, (a, [0], False), out=torch.empty(0, dtype=dtype))


def test_amax_nan_wins(call_op: Any) -> None:
    nan = float("nan")
    a = torch.tensor([[1.0, nan, 3.0], [float("inf"), 2.0, nan]] * 20).T.contiguous()
    for dim in ([0], [1], []):
        for name, torch_op in OPS:
            check_op(call_op, name, torch_op, (a, dim), out=torch.empty(0))


@pytest.mark.parametrize(
    ("shape", "dim", "out_dtype", "match"),
    [
        ((0, 3), [0], torch.float32, "Expected reduction dim 0 to have non-zero size"),
        ((0,), [], torch.float32, "Expected reduction dim to be specified"),
        ((2, 3), [0], torch.float64, "Expected the dtype for input and out to match"),
        ((2, 3), [1, -1], torch.float32, "appears multiple times"),
    ],
)
def test_amax_errors(
    call_op: Any, shape: tuple, dim: list[int], out_dtype: torch.dtype, match: str
) -> None:
    a = torch.ones(shape)
    with pytest.raises((RuntimeError, IndexError)):
        aten.amax.out(a, dim, out=torch.empty(0, dtype=out_dtype))
    with pytest.raises(kiln.KilnError, match=match):
        call_op("aten::amax.out", a, dim, out=torch.empty(0, dtype=out_dtype))
