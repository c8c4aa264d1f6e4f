"""aten::tril.out and triu.out against torch."""

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
diagonals = st.one_of(st.integers(-7, 7), st.sampled_from([-(2**62), 2**62]))


@SETTINGS
@given(
    data=st.data(),
    op=st.sampled_from([("aten::tril.out", aten.tril.out), ("aten::triu.out", aten.triu.out)]),
)
def test_triangle_matches_torch(call_op: Any, data: Any, op: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 4, 0, 6)))
    diagonal = data.draw(diagonals)
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, op[0], op[1], (a, diagonal), out=out)


def test_triangle_needs_two_dims(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="at least 2 dimensions"):
        call_op("aten::tril.out", torch.ones(3), out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match="at least 2 dimensions"):
        call_op("aten::triu.out", torch.ones(3), out=torch.empty(0))
