"""aten::arange.out and arange.start_out against torch: length rule, out dtype, errors."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, eps
from strategies import dtypes, out_like

import kiln

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
bounds = st.one_of(
    st.integers(-50, 50),
    st.floats(-50, 50, allow_nan=False).map(lambda x: round(x, 2)),
    st.sampled_from([float("inf"), float("nan")]),
)
steps = st.one_of(st.integers(-7, 7), st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 2)))


@SETTINGS
@given(data=st.data())
def test_arange_start_matches_torch(call_op: Any, data: Any) -> None:
    start = data.draw(bounds)
    end = data.draw(bounds)
    step = data.draw(steps)
    dtype = data.draw(dtypes)
    out = out_like(dtype, None)
    # ATen mixes vectorised and fused start + i * step evaluations; allow a rounding of the
    # largest magnitude involved.
    scale = abs(start) + abs(end) + abs(step) + 1 if start == start and end == end else 1
    check_op(
        call_op,
        "aten::arange.start_out",
        aten.arange.start_out,
        (start, end, step),
        out=out,
        atol=2 * eps(dtype) * scale if scale != float("inf") else 0.0,
    )


@SETTINGS
@given(data=st.data())
def test_arange_end_matches_torch(call_op: Any, data: Any) -> None:
    end = data.draw(st.one_of(st.integers(-3, 300), st.floats(-3, 300, allow_nan=False)))
    dtype = data.draw(dtypes)
    n = data.draw(st.integers(0, 5))
    check_op(call_op, "aten::arange.out", aten.arange.out, (end,), out=out_like(dtype, (n,)))


def test_arange_keeps_out_shape_when_numel_matches(call_op: Any) -> None:
    out = call_op("aten::arange.out", 4, out=torch.empty(2, 2, dtype=torch.int64))
    assert out.shape == (2, 2)
    torch.testing.assert_close(out.flatten(), torch.arange(4), rtol=0, atol=0)


@pytest.mark.parametrize(
    ("args", "dtype", "match"),
    [
        ((0, 5, 0), torch.float32, "step must be nonzero"),
        ((0, 5, 0.5), torch.int64, "step must be nonzero"),
        ((0, 5, -1), torch.float32, "inconsistent with step sign"),
        ((0, float("inf"), 1), torch.float32, "unsupported range"),
        ((0, 3, 1), torch.bool, "not implemented for 'Bool'"),
    ],
)
def test_arange_errors(call_op: Any, args: tuple, dtype: torch.dtype, match: str) -> None:
    with pytest.raises(kiln.KilnError, match=match):
        call_op("aten::arange.start_out", *args, out=torch.empty(0, dtype=dtype))
