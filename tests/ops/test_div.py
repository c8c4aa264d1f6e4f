"""aten::div.out, div.out_mode, div.Scalar_out and div.Scalar_mode_out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import raises
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import broadcastable_shapes, dtypes, make_tensor, out_tensors, tensors

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

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
    with raises(call_op, "result type Float can't be cast"):
        call_op("aten::div.out", a, a, out=torch.empty(0, dtype=torch.int32))
    with raises(call_op, "not broadcastable"):
        call_op("aten::div.out", torch.ones(3), torch.ones(2), out=torch.empty(0))


modes = st.sampled_from(["trunc", "floor"])
divisors = st.one_of(
    st.booleans(),
    st.integers(-4, 4),
    st.floats(-8, 8, width=32),
    st.sampled_from([0.0, -0.0, float("inf"), float("nan"), 65520.0, 1.0001]),
)


def mode_result(a: Any, b: Any, mode: str | None) -> torch.dtype:
    return div_result(a, b) if mode is None else torch.result_type(a, b)


@SETTINGS
@given(data=st.data())
def test_div_mode_matches_torch(call_op: Any, data: Any) -> None:
    shape_a, shape_b = data.draw(broadcastable_shapes())
    dtype_a = data.draw(dtypes)
    dtype_b = dtype_a if data.draw(st.booleans()) else data.draw(dtypes)
    a = data.draw(tensors(dtype_a, shape_a))
    # Mostly nonzero integer divisors so results, not just the zero error, get compared.
    low = data.draw(st.sampled_from([-3, 1]))
    b = data.draw(tensors(dtype_b, shape_b, int_range=(low, 3)))
    mode = data.draw(st.one_of(st.none(), modes))
    shape = tuple(torch.broadcast_shapes(a.shape, b.shape))
    out = data.draw(out_tensors(mode_result(a, b, mode), shape))
    check_op(
        call_op, "aten::div.out_mode", aten.div.out_mode, (a, b), {"rounding_mode": mode}, out=out
    )


@SETTINGS
@given(data=st.data())
def test_div_scalar_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors())
    other = data.draw(divisors)
    out = data.draw(out_tensors(div_result(a, other), tuple(a.shape)))
    check_op(call_op, "aten::div.Scalar_out", aten.div.Scalar_out, (a, other), out=out)


@SETTINGS
@given(data=st.data())
def test_div_scalar_mode_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors())
    other = data.draw(divisors)
    mode = data.draw(st.one_of(st.none(), modes))
    out = data.draw(out_tensors(mode_result(a, other, mode), tuple(a.shape)))
    check_op(
        call_op,
        "aten::div.Scalar_mode_out",
        aten.div.Scalar_mode_out,
        (a, other),
        {"rounding_mode": mode},
        out=out,
    )


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64, torch.uint8])
def test_div_rounding_integer_signs(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (4, 300), 1, int_range=(-100, 100))
    b = make_tensor(dtype, (300,), 2, int_range=(-7, 7))
    b[b == 0] = 3
    for mode in ["trunc", "floor"]:
        out = torch.empty(0, dtype=dtype)
        check_op(
            call_op,
            "aten::div.out_mode",
            aten.div.out_mode,
            (a, b),
            {"rounding_mode": mode},
            out=out,
        )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_div_floor_floats(call_op: Any, dtype: torch.dtype) -> None:
    values = [7.0, -7.0, 0.0, -0.0, 1.0, float("inf"), -float("inf"), float("nan"), 5.5, -0.25]
    a = torch.tensor(values, dtype=dtype).repeat_interleave(len(values))
    b = torch.tensor(values, dtype=dtype).repeat(len(values))
    for mode in ["trunc", "floor"]:
        out = torch.empty(0, dtype=dtype)
        check_op(
            call_op,
            "aten::div.out_mode",
            aten.div.out_mode,
            (a, b),
            {"rounding_mode": mode},
            out=out,
        )


def test_div_integer_division_by_zero(call_op: Any) -> None:
    a = torch.tensor([4, -4, 0], dtype=torch.int64)
    for mode in ["trunc", "floor"]:
        with raises(call_op, "ZeroDivisionError"):
            call_op(
                "aten::div.out_mode",
                a,
                torch.tensor([1, 0, 2]),
                rounding_mode=mode,
                out=torch.empty(0, dtype=torch.int64),
            )
        with raises(call_op, "ZeroDivisionError"):
            call_op(
                "aten::div.Scalar_mode_out",
                a,
                0,
                rounding_mode=mode,
                out=torch.empty(0, dtype=torch.int64),
            )


def test_div_mode_errors(call_op: Any) -> None:
    a = torch.ones(2, dtype=torch.int32)
    with raises(call_op, "rounding_mode to be one of"):
        call_op("aten::div.out_mode", a, a, rounding_mode="round", out=torch.empty(0))
    b = torch.ones(2, dtype=torch.bool)
    with raises(call_op, "not implemented for dtype Bool"):
        call_op(
            "aten::div.out_mode", b, b, rounding_mode="floor", out=torch.empty(0, dtype=torch.bool)
        )
    with raises(call_op, "Expected out tensor to have dtype Float"):
        call_op("aten::div.Scalar_out", a, 2, out=torch.empty(0, dtype=torch.float64))
