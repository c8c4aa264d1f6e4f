"""aten::full.out, full_like.out, zeros.out and ones.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import any_scalars, dtypes, out_like, shapes, tensors

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
fill_values = st.one_of(
    any_scalars, st.integers(-300, 300), st.floats(-1e5, 1e5, allow_nan=False, width=32)
)
sizes = st.lists(st.integers(0, 4), max_size=4)


@SETTINGS
@given(data=st.data())
def test_full_matches_torch(call_op: Any, data: Any) -> None:
    size = data.draw(sizes)
    value = data.draw(fill_values)
    out = out_like(data.draw(dtypes), tuple(size) if data.draw(st.booleans()) else None)
    check_op(call_op, "aten::full.out", aten.full.out, (size, value), out=out)


@SETTINGS
@given(data=st.data())
def test_full_like_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 5, 0, 3)))
    value = data.draw(fill_values)
    fmt = data.draw(st.sampled_from([None, torch.preserve_format, torch.channels_last]))
    out = out_like(data.draw(dtypes), tuple(a.shape) if data.draw(st.booleans()) else None)
    check_op(
        call_op,
        "aten::full_like.out",
        aten.full_like.out,
        (a, value),
        {"memory_format": fmt},
        out=out,
    )


@SETTINGS
@given(data=st.data())
def test_zeros_ones_match_torch(call_op: Any, data: Any) -> None:
    size = data.draw(sizes)
    out = out_like(data.draw(dtypes), tuple(size) if data.draw(st.booleans()) else None)
    check_op(call_op, "aten::zeros.out", aten.zeros.out, (size,), out=out)
    check_op(call_op, "aten::ones.out", aten.ones.out, (size,), out=out)


def test_full_errors(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="without overflow"):
        call_op("aten::full.out", [2], 300, out=torch.empty(0, dtype=torch.int8))
    # (libtorch words the negative size as a numel overflow)
    with pytest.raises(kiln.KilnError, match="negative dimension|overflow"):
        call_op("aten::full.out", [2, -1], 1, out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match="negative dimension|overflow"):
        call_op("aten::zeros.out", [-1], out=torch.empty(0))
