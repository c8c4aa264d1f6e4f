"""aten::narrow_copy.out against torch."""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import dtypes, out_tensors, shapes, tensors

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


@SETTINGS
@given(data=st.data())
def test_narrow_copy_matches_torch(call_op: Any, data: Any) -> None:
    """Valid and invalid starts/lengths (torch decides which raise), 0-dim self included."""
    a = data.draw(tensors(dtypes, shapes(0, 4)))
    rank = max(a.dim(), 1)
    dim = data.draw(st.integers(-rank - 1, rank))
    size = a.shape[dim] if a.dim() and -rank <= dim < rank else 3
    start = data.draw(st.integers(-size - 1, size + 1))
    length = data.draw(st.integers(-1, size + 1))
    out = data.draw(out_tensors(a.dtype, (0,)))
    check_op(
        call_op, "aten::narrow_copy.out", aten.narrow_copy.out, (a, dim, start, length), out=out
    )
