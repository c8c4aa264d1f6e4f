"""aten::glu.out against torch: a * sigmoid(b) for the two halves a, b of self along dim."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, eps, magnitude, raises
from strategies import FLOAT_DTYPES, float_dtypes, make_tensor, out_like, seeds, shapes

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

GLU = "aten::glu.out"
glu = torch.ops.aten.glu.out


def wider_out_atol(dtype: torch.dtype, out_dtype: torch.dtype, a: torch.Tensor) -> float:
    """A result computed in `dtype` and written to a more precise out keeps dtype's rounding,
    where Kiln and ATen may differ by an ulp: allow two."""
    return 2 * eps(dtype) * magnitude(a) if eps(dtype) > eps(out_dtype) else 0.0


@SETTINGS
@given(data=st.data())
def test_glu_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(float_dtypes)
    shape = list(data.draw(shapes(1, 4, 0, 4)))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    if data.draw(st.integers(0, 4)) > 0:
        shape[dim] *= 2  # mostly even (odd sizes are refused, as by torch)
    a = make_tensor(dtype, tuple(shape), data.draw(seeds), special=data.draw(st.booleans()))
    out_dtype = data.draw(st.sampled_from([dtype, dtype, *FLOAT_DTYPES]))
    atol = wider_out_atol(dtype, out_dtype, a)
    check_op(call_op, GLU, glu, (a, dim), out=out_like(out_dtype, None), atol=atol)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_glu_long_rows(call_op: Any, dtype: torch.dtype, dim: int) -> None:
    a = make_tensor(dtype, (6, 4, 600), seed=2, magnitude=5.0)
    check_op(call_op, GLU, glu, (a, dim), out=torch.empty(0, dtype=dtype))
    # A wider out: computed in self's dtype, then converted, so it differs from ATen's by that
    # dtype's rounding.
    atol = wider_out_atol(dtype, torch.float64, a)
    check_op(call_op, GLU, glu, (a, dim), out=torch.empty(0, dtype=torch.float64), atol=atol)


def test_glu_errors(call_op: Any) -> None:
    with raises(call_op, "Halving dimension must be even, but dimension 1 is size 3"):
        call_op(GLU, torch.ones(2, 3), -1, out=torch.empty(0))
    with raises(call_op, "glu does not support 0-dimensional tensors"):
        call_op(GLU, torch.tensor(1.0), 0, out=torch.empty(0))
    with raises(call_op, "Dimension out of range"):
        call_op(GLU, torch.ones(2, 4), 2, out=torch.empty(0))
    with raises(call_op, "glu is not implemented for dtype Int"):
        call_op(GLU, torch.ones(2, 4, dtype=torch.int32), -1, out=torch.empty(0))
    with raises(call_op, "can't be cast to the desired output type Int"):
        call_op(GLU, torch.ones(2, 4), -1, out=torch.empty(0, dtype=torch.int32))
