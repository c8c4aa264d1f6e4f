"""aten::_pdist_forward.out against torch: every norm, negative p (which the raw op takes),
NaN and infinities, and the shapes with no pairs or no columns."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, is_portable, raises
from strategies import dtypes, make_tensor, out_tensors

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
NAME = "aten::_pdist_forward.out"
OP = aten._pdist_forward.out
NORMS = [0.0, 1.0, 2.0, 3.0, 0.5, 1.5, -1.0, math.inf]


@SETTINGS
@given(data=st.data())
def test_pdist_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from([torch.float32, torch.float64]))
    if data.draw(st.integers(0, 6)) == 0:
        dtype = data.draw(dtypes)
    n, m = data.draw(st.integers(0, 12)), data.draw(st.integers(0, 20))
    special = data.draw(st.integers(0, 5)) == 0
    x = make_tensor(dtype, (n, m), data.draw(st.integers(0, 2**31 - 1)), special=special)
    p = data.draw(st.sampled_from(NORMS))
    out = data.draw(out_tensors(dtype, (0,), other_dtype_p=0.1))
    scale = 10.0 * max(m, 1)
    check_op(call_op, NAME, OP, (x, p), out=out, atol=4 * scale * 2.4e-7)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pdist_large(call_op: Any, dtype: torch.dtype) -> None:
    x = make_tensor(dtype, (60, 33), 3, magnitude=1.0)
    for p in NORMS:
        check_op(call_op, NAME, OP, (x, p), out=torch.empty(0, dtype=dtype), atol=1e-5)


@pytest.mark.parametrize(
    "x",
    [
        torch.ones(5),  # 1-d
        torch.tensor(1.0),
        torch.ones(3, 2, dtype=torch.float16),
        torch.ones(3, 2, dtype=torch.int32),
    ],
)
def test_pdist_refusals(call_op: Any, x: torch.Tensor) -> None:
    check_op(call_op, NAME, OP, (x, 2.0), out=torch.empty(0, dtype=x.dtype))


def test_pdist_refuses_3d_input(call_op: Any) -> None:
    # ATen's raw op reads a 3-d input as [size(0), size(1)]; Kiln refuses it, as torch.pdist.
    if not is_portable(call_op):
        pytest.skip("libtorch computes on a 3-d input")
    with raises(call_op, "pdist only supports 2D tensors"):
        call_op(NAME, torch.ones(3, 2, 2), 2.0, out=torch.empty(0))
