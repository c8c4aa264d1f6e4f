"""aten::cumsum.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, eps
from strategies import ALL_DTYPES, dtypes, make_tensor, out_like, shapes, tensors

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def cumsum_atol(a: torch.Tensor, dtype: torch.dtype) -> float:
    if not dtype.is_floating_point or a.numel() == 0:
        return 0.0
    finite = a.double()[torch.isfinite(a.double())]
    total = float(finite.abs().sum()) if finite.numel() else 0.0
    return 2 * eps(dtype) * total


@SETTINGS
@given(data=st.data())
def test_cumsum_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(dtypes)
    cumsum_dtype = data.draw(st.one_of(st.none(), dtypes))
    out_dtype = cumsum_dtype or (dtype if dtype.is_floating_point else torch.int64)
    if data.draw(st.integers(0, 4)) == 0:
        out_dtype = data.draw(dtypes)
    integral = not out_dtype.is_floating_point
    special = False if integral else data.draw(st.booleans())
    a = data.draw(tensors(dtype, shapes(0, 4, 0, 6), magnitude=50.0, special=special))
    rank = max(a.dim(), 1)
    dim = data.draw(st.integers(-rank - 1, rank))
    check_op(
        call_op,
        "aten::cumsum.out",
        aten.cumsum.out,
        (a, dim),
        {"dtype": cumsum_dtype},
        out=out_like(out_dtype, tuple(a.shape) if data.draw(st.booleans()) else None),
        atol=cumsum_atol(a, out_dtype),
    )


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_cumsum_long_rows_and_columns(call_op: Any, dtype: torch.dtype) -> None:
    # Integers also scan in their own dtype (where the sums wrap); inner sizes above 256 run
    # the column scans in several blocks.
    out_dtypes = {dtype, dtype if dtype.is_floating_point else torch.int64} - {torch.bool}
    for shape, dim in [((3, 700), 1), ((700, 3), 0), ((4, 300, 5), 1), ((2, 40, 300), 1)]:
        a = make_tensor(dtype, shape, 12, magnitude=3.0, int_range=(-50, 50))
        for out_dtype in out_dtypes:
            check_op(
                call_op,
                "aten::cumsum.out",
                aten.cumsum.out,
                (a, dim),
                {"dtype": out_dtype},
                out=torch.empty(0, dtype=out_dtype),
                atol=cumsum_atol(a, out_dtype),
            )


def test_cumsum_rejects_bool_out(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="not implemented for 'Bool'"):
        call_op("aten::cumsum.out", torch.ones(3), 0, out=torch.empty(0, dtype=torch.bool))
