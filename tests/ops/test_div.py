"""aten::div.out (true division) against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import broadcastable_shapes, dtypes, make_tensor, out_tensors, tensors

import kiln

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def div_result(a: torch.Tensor, b: torch.Tensor) -> torch.dtype:
    result = torch.result_type(a, b)
    return result if result.is_floating_point else torch.get_default_dtype()


@SETTINGS
@given(data=st.data())
def test_div_matches_torch(call_op: Any, data: Any) -> None:
    shape_a, shape_b = data.draw(broadcastable_shapes())
    dtype_a = data.draw(dtypes)
    dtype_b = dtype_a if data.draw(st.booleans()) else data.draw(dtypes)
    a = data.draw(tensors(dtype_a, shape_a))
    # Small integers make division by zero (inf, nan) common.
    b = data.draw(tensors(dtype_b, shape_b, int_range=(-3, 3)))
    out = data.draw(out_tensors(div_result(a, b), tuple(torch.broadcast_shapes(a.shape, b.shape))))
    check_op(call_op, "aten::div.out", aten.div.out, (a, b), out=out)


def test_div_integers_divide_as_float(call_op: Any) -> None:
    a = torch.tensor([7, -7, 0, 1, 2**40 + 1], dtype=torch.int64)
    b = torch.tensor([2, 2, 0, 0, 3], dtype=torch.int64)
    out = call_op("aten::div.out", a, b, out=torch.empty(0))
    torch.testing.assert_close(out, torch.div(a, b), equal_nan=True)
    assert out.dtype == torch.float32


def test_div_long_rows(call_op: Any) -> None:
    a = make_tensor(torch.float16, (2, 600), 7)
    b = make_tensor(torch.float32, (600,), 8)
    check_op(call_op, "aten::div.out", aten.div.out, (a, b), out=torch.empty(0))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_div_reads_a_scalar_other_unrounded(call_op: Any, dtype: torch.dtype) -> None:
    a = torch.tensor([1.0, 3.0, -2.0, 0.0], dtype=dtype)
    for other in [
        torch.tensor(65520.0),
        torch.tensor([3.0], dtype=torch.float64),
        torch.tensor(1e39),
    ]:
        check_op(
            call_op, "aten::div.out", aten.div.out, (a, other), out=torch.empty(0, dtype=dtype)
        )


def test_div_errors(call_op: Any) -> None:
    a = torch.ones(2, dtype=torch.int32)
    with pytest.raises(kiln.KilnError, match="result type Float can't be cast"):
        call_op("aten::div.out", a, a, out=torch.empty(0, dtype=torch.int32))
    with pytest.raises(kiln.KilnError, match="not broadcastable"):
        call_op("aten::div.out", torch.ones(3), torch.ones(2), out=torch.empty(0))
