"""aten::add.out, add.Scalar_out, sub.out and sub.Scalar_out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import is_portable, raises
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from op_compare import check_op, eps, magnitude
from strategies import (
    any_scalars,
    broadcastable_shapes,
    dtypes,
    make_tensor,
    out_tensors,
    tensors,
    unbroadcastable_shapes,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
alphas = st.one_of(
    st.integers(-3, 3), st.integers(-300, 300), st.floats(-4, 4, width=32), st.booleans()
)


def alpha_atol(result: torch.dtype, a: torch.Tensor, b: Any, alpha: Any) -> float:
    """Room for ATen rounding alpha * other (or fusing it) where Kiln does not."""
    if not result.is_floating_point:
        return 0.0
    return 2 * eps(result) * (magnitude(a) + abs(float(alpha)) * magnitude(b))


def assume_finite_product(result: torch.dtype, b: Any, alpha: Any) -> None:
    """Leaves out alpha * other at the edge of a float result's range: there ATen itself differs
    by position (its vector body keeps the product in float, its scalar tail rounds it to the
    result dtype first and overflows to inf), so there is no single answer to match."""
    if result.is_floating_point:
        assume(abs(float(alpha)) * magnitude(b) < torch.finfo(result).max / 2)


@st.composite
def binary_inputs(draw: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Two broadcastable tensors; half the time of one dtype, else of two (promotion)."""
    shape_a, shape_b = draw(broadcastable_shapes())
    dtype_a = draw(dtypes)
    dtype_b = dtype_a if draw(st.booleans()) else draw(dtypes)
    return draw(tensors(dtype_a, shape_a)), draw(tensors(dtype_b, shape_b))


def expected_shape(a: torch.Tensor, b: torch.Tensor) -> tuple:
    return tuple(torch.broadcast_shapes(a.shape, b.shape))


@SETTINGS
@given(data=st.data())
def test_add_matches_torch(call_op: Any, data: Any) -> None:
    a, b = data.draw(binary_inputs())
    alpha = data.draw(alphas)
    result = torch.result_type(a, b)
    assume_finite_product(result, b, alpha)
    out = data.draw(out_tensors(result, expected_shape(a, b)))
    check_op(
        call_op,
        "aten::add.out",
        aten.add.out,
        (a, b),
        {"alpha": alpha},
        out=out,
        atol=alpha_atol(result, a, b, alpha),
    )


@SETTINGS
@given(data=st.data())
def test_sub_matches_torch(call_op: Any, data: Any) -> None:
    a, b = data.draw(binary_inputs())
    alpha = data.draw(alphas)
    result = torch.result_type(a, b)
    assume_finite_product(result, b, alpha)
    out = data.draw(out_tensors(result, expected_shape(a, b)))
    check_op(
        call_op,
        "aten::sub.out",
        aten.sub.out,
        (a, b),
        {"alpha": alpha},
        out=out,
        atol=alpha_atol(result, a, b, alpha),
    )


@SETTINGS
@given(data=st.data())
def test_add_scalar_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors())
    other = data.draw(any_scalars)
    alpha = data.draw(alphas)
    result = torch.result_type(a, other)
    assume_finite_product(result, other, alpha)
    out = data.draw(out_tensors(result, tuple(a.shape)))
    check_op(
        call_op,
        "aten::add.Scalar_out",
        aten.add.Scalar_out,
        (a, other),
        {"alpha": alpha},
        out=out,
        atol=alpha_atol(result, a, other, alpha),
    )


@SETTINGS
@given(data=st.data())
def test_sub_scalar_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors())
    other = data.draw(any_scalars)
    alpha = data.draw(alphas)
    result = torch.result_type(a, other)
    assume_finite_product(result, other, alpha)
    out = data.draw(out_tensors(result, tuple(a.shape)))
    check_op(
        call_op,
        "aten::sub.Scalar_out",
        aten.sub.Scalar_out,
        (a, other),
        {"alpha": alpha},
        out=out,
        atol=alpha_atol(result, a, other, alpha),
    )


def test_sub_scalar_rejects_bool(call_op: Any) -> None:
    for a, other in [(torch.ones(2, dtype=torch.bool), 1), (torch.ones(2), True)]:
        out = torch.empty(0, dtype=torch.result_type(a, other))
        with raises(call_op, "Subtraction"):
            call_op("aten::sub.Scalar_out", a, other, out=out)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.int8])
def test_add_in_place(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (4, 5), 1)
    b = make_tensor(dtype, (5,), 2)
    expected = a.clone().add_(b, alpha=2)
    call_op("aten::add.out", a, b, alpha=2, out=a)
    torch.testing.assert_close(a, expected, equal_nan=True)


def test_int8_wraps_like_uint8_rows(call_op: Any) -> None:
    # add, sub and mul of Char run in Byte's loops (the same bits): full-range operands, negative
    # and extreme alphas, every stride pairing, wrapping both ways.
    gen = torch.Generator().manual_seed(8)
    a = torch.randint(-128, 128, (3, 700), generator=gen, dtype=torch.int8)
    b = torch.randint(-128, 128, (3, 700), generator=gen, dtype=torch.int8)
    pairs = [
        (a, b),
        (a, b[0]),
        (a[:, :1].contiguous(), b),
        (a, torch.tensor(-77, dtype=torch.int8)),
    ]
    out = torch.empty(0, dtype=torch.int8)
    for x, y in pairs:
        for alpha in [1, -1, 3, -127, 127]:
            check_op(call_op, "aten::add.out", aten.add.out, (x, y), {"alpha": alpha}, out=out)
            check_op(call_op, "aten::sub.out", aten.sub.out, (x, y), {"alpha": alpha}, out=out)
        check_op(call_op, "aten::mul.out", aten.mul.out, (x, y), out=out)
    check_op(call_op, "aten::mul.Scalar_out", aten.mul.Scalar_out, (a, -3), out=out)


def test_add_large_contiguous_and_broadcast(call_op: Any) -> None:
    # Long rows cross the kernels' chunk sizes; a mixed dtype takes the converting path.
    for a_shape, b_shape, b_dtype in [
        ((3, 1000), (3, 1000), torch.float32),
        ((3, 1000), (1000,), torch.float16),
        ((1000, 1), (1, 7), torch.int32),
        ((2, 513), (2, 1), torch.float64),
    ]:
        a = make_tensor(torch.float32, a_shape, 3)
        b = make_tensor(b_dtype, b_shape, 4, int_range=(-100, 100))
        out = torch.empty(0, dtype=torch.result_type(a, b))
        check_op(
            call_op,
            "aten::add.out",
            aten.add.out,
            (a, b),
            {"alpha": 3},
            out=out,
            atol=alpha_atol(out.dtype, a, b, 3),
        )


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int64]
)
def test_add_short_rows_broadcast(call_op: Any, dtype: torch.dtype) -> None:
    # [R, L] against [L] or [R, 1] with L up to 64 runs many rows per call, the broadcast operand
    # tiled into a buffer (the row copied, or each value spread over its row): row counts that end
    # inside a tile or fill less than one, the tiled operand first or second, both operands tiled
    # ([R, 1] + [L]), and the longest and one-past-longest rows.
    special = dtype.is_floating_point
    bools = torch.empty(0, dtype=torch.bool)
    for rows, length in [(2, 2), (7, 3), (1000, 4), (1025, 5), (129, 64), (40, 65), (3001, 1)]:
        a = make_tensor(dtype, (rows, length), 5, special=special)
        row = make_tensor(dtype, (length,), 6, special=special)
        column = make_tensor(dtype, (rows, 1), 7, special=special)
        out = torch.empty(0, dtype=dtype)
        for x, y in [(a, row), (row, a), (a, column), (column, a), (column, row)]:
            check_op(call_op, "aten::add.out", aten.add.out, (x, y), {"alpha": 2}, out=out)
            check_op(call_op, "aten::sub.out", aten.sub.out, (x, y), out=out)
            check_op(call_op, "aten::lt.Tensor_out", aten.lt.Tensor_out, (x, y), out=bools)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("out_dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_add_reduced_floats_into_any_float_out(
    call_op: Any, dtype: torch.dtype, out_dtype: torch.dtype
) -> None:
    # Same-dtype Half/BFloat16 rows into their own dtype (BFloat16 converting inline) or into
    # Float (a chunk at a time, rounded to the dtype first).
    a = make_tensor(dtype, (3, 700), 5, special=True)
    b = make_tensor(dtype, (700,), 6, special=True)
    for alpha in [1, -2]:
        out = torch.empty(0, dtype=out_dtype)
        check_op(call_op, "aten::add.out", aten.add.out, (a, b), {"alpha": alpha}, out=out)
        check_op(call_op, "aten::sub.out", aten.sub.out, (b, a), {"alpha": alpha}, out=out)


@pytest.mark.parametrize("dtype", [torch.float64, torch.int64, torch.int32])
@pytest.mark.parametrize("reduced", [torch.float16, torch.bfloat16])
def test_add_wide_compute_types_meet_16_bit_floats(
    call_op: Any, dtype: torch.dtype, reduced: torch.dtype
) -> None:
    # Double and int64 results stored into a Half or BFloat16 out, and (double only) a 16-bit
    # operand read as double: both go through float, a block of 256 at a time, so rows of 700
    # cover whole blocks and a partial one; magnitudes past Half's range overflow to inf.
    a = make_tensor(dtype, (3, 700), 7, special=True, magnitude=3e4, int_range=(-99999, 99999))
    b = make_tensor(dtype, (700,), 8, special=True, magnitude=3e4, int_range=(-99999, 99999))
    out = torch.empty(0, dtype=reduced)
    check_op(call_op, "aten::add.out", aten.add.out, (a, b), {"alpha": 1}, out=out)
    if dtype == torch.float64:
        c = make_tensor(reduced, (700,), 9, special=True)
        wide = torch.empty(0, dtype=dtype)
        check_op(call_op, "aten::add.out", aten.add.out, (a, c), {"alpha": 1}, out=wide)
        check_op(call_op, "aten::add.out", aten.add.out, (c, a), {"alpha": 1}, out=out)


def test_add_rounds_a_scalar_other(call_op: Any) -> None:
    # Unlike mul and div, ATen's add rounds a single-element other to Half first: 65520 -> inf.
    a = torch.tensor([-65504.0, 1.0], dtype=torch.float16)
    check_op(
        call_op,
        "aten::add.Scalar_out",
        aten.add.Scalar_out,
        (a, 65520),
        out=torch.empty(0, dtype=torch.float16),
    )
    check_op(
        call_op,
        "aten::add.out",
        aten.add.out,
        (a, torch.tensor(65520.0)),
        out=torch.empty(0, dtype=torch.float16),
    )


@given(shapes=unbroadcastable_shapes())
@settings(max_examples=20, deadline=None)
def test_add_not_broadcastable(call_op: Any, shapes: tuple) -> None:
    a, b = torch.ones(shapes[0]), torch.ones(shapes[1])
    with raises(call_op, "not broadcastable"):
        call_op("aten::add.out", a, b, out=torch.empty(0))
    with pytest.raises(RuntimeError):
        aten.add.out(a, b, out=torch.empty(0))


@pytest.mark.parametrize(
    ("op", "a", "b", "alpha", "out_dtype", "match"),
    [
        (
            "aten::add.out",
            torch.ones(2, dtype=torch.int64),
            torch.ones(2, dtype=torch.int64),
            1.5,
            torch.int64,
            "alpha must not be a floating point",
        ),
        (
            "aten::add.out",
            torch.ones(2, dtype=torch.bool),
            torch.ones(2, dtype=torch.bool),
            0.5,
            torch.bool,
            "alpha must not be a floating point",
        ),
        ("aten::add.out", torch.ones(2), torch.ones(2), True, torch.float32, "Boolean alpha"),
        (
            "aten::add.out",
            torch.ones(2, dtype=torch.int8),
            torch.ones(2, dtype=torch.int8),
            300,
            torch.int8,
            "without overflow",
        ),
        (
            "aten::add.out",
            torch.ones(2, dtype=torch.float16),
            torch.ones(2, dtype=torch.float16),
            1e5,
            torch.float16,
            "without overflow",
        ),
        ("aten::add.out", torch.ones(2), torch.ones(2), 1, torch.int64, "can't be cast"),
        (
            "aten::add.out",
            torch.ones(2, dtype=torch.int32),
            torch.ones(2, dtype=torch.int32),
            1,
            torch.bool,
            "can't be cast",
        ),
        (
            "aten::sub.out",
            torch.ones(2, dtype=torch.bool),
            torch.ones(2, dtype=torch.bool),
            1,
            torch.bool,
            "two bool tensors",
        ),
        (
            "aten::sub.out",
            torch.ones(2, dtype=torch.bool),
            torch.ones(2),
            1,
            torch.float32,
            "with a bool tensor",
        ),
        (
            "aten::sub.out",
            torch.ones(2, dtype=torch.int8),
            torch.ones(2, dtype=torch.int8),
            -128,
            torch.int8,
            "without overflow",
        ),
    ],
)
def test_add_sub_errors(
    call_op: Any,
    op: str,
    a: torch.Tensor,
    b: torch.Tensor,
    alpha: Any,
    out_dtype: torch.dtype,
    match: str,
) -> None:
    torch_op = aten.add.out if op == "aten::add.out" else aten.sub.out
    with pytest.raises(RuntimeError):
        torch_op(a, b, alpha=alpha, out=torch.empty(0, dtype=out_dtype))
    with raises(call_op, match):
        call_op(op, a, b, alpha=alpha, out=torch.empty(0, dtype=out_dtype))


def test_add_scalar_out_dtype_must_match(call_op: Any) -> None:
    # The Scalar overload's out must have the result dtype exactly (no widening cast).
    a = torch.ones(3)
    with pytest.raises(RuntimeError):
        aten.add.Scalar_out(a, 1, out=torch.empty(0, dtype=torch.float64))
    with raises(call_op, "Expected out tensor to have dtype Float"):
        call_op("aten::add.Scalar_out", a, 1, out=torch.empty(0, dtype=torch.float64))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.uint16])
def test_add_rejects_dtypes_kiln_lacks(call_op: Any, dtype: torch.dtype) -> None:
    if not is_portable(call_op):
        pytest.skip("tests a limit of the portable kernels")
    a = torch.ones(2, dtype=dtype)
    with raises(call_op, "does not support"):
        call_op("aten::add.out", a, a, out=torch.empty(0, dtype=dtype))
