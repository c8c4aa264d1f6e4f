"""aten::pow.Tensor_Tensor_out, aten::pow.Tensor_Scalar_out and aten::pow.Scalar_out."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import SETTINGS, check_tensor_scalar, check_tensor_tensor, raises, small_scalars
from hypothesis import given
from hypothesis import strategies as st
from op_compare import check_op, magnitude
from strategies import dtypes, make_tensor, out_tensors, tensors

aten = torch.ops.aten
exponents = st.one_of(
    small_scalars, st.sampled_from([0, 1, 2, 3, -1, -2, 0.5, -0.5, 2.5, True, False, 200])
)


@SETTINGS
@given(data=st.data())
def test_pow_tensor_tensor_matches_torch(call_op: Any, data: Any) -> None:
    check_tensor_tensor(
        call_op,
        data,
        "aten::pow.Tensor_Tensor_out",
        aten.pow.Tensor_Tensor_out,
        other_int_range=(-3, 3),
    )


@SETTINGS
@given(data=st.data())
def test_pow_tensor_scalar_matches_torch(call_op: Any, data: Any) -> None:
    check_tensor_scalar(
        call_op,
        data,
        "aten::pow.Tensor_Scalar_out",
        aten.pow.Tensor_Scalar_out,
        scalars=exponents,
    )


@SETTINGS
@given(data=st.data())
def test_pow_scalar_matches_torch(call_op: Any, data: Any) -> None:
    base = data.draw(st.one_of(small_scalars, st.sampled_from([1, 1.0, True, -1, 2])))
    exponent = data.draw(tensors(data.draw(dtypes), int_range=(-3, 3)))
    out = data.draw(out_tensors(torch.result_type(base, exponent), tuple(exponent.shape)))
    check_op(call_op, "aten::pow.Scalar_out", aten.pow.Scalar_out, (base, exponent), out=out)


def test_pow_integer_negative_exponents(call_op: Any) -> None:
    base = torch.tensor([2, -1, 1, 0, -1, 3], dtype=torch.int64)
    exponent = torch.tensor([-1, -3, -2, 2, -2, 40], dtype=torch.int64)
    check_op(
        call_op,
        "aten::pow.Tensor_Tensor_out",
        aten.pow.Tensor_Tensor_out,
        (base, exponent),
        out=torch.empty(0, dtype=torch.int64),
    )
    for dtype in [torch.int32, torch.uint8, torch.bool]:
        with raises(call_op, "negative integer powers"):
            call_op(
                "aten::pow.Tensor_Scalar_out",
                base.to(dtype),
                -2,
                out=torch.empty(0, dtype=torch.int64),
            )


def test_pow_float_rows(call_op: Any) -> None:
    a = make_tensor(torch.float32, (3, 500), 1).abs()
    for exponent in [2, 2.5, -0.5, 0.5, 3, -1]:
        check_op(
            call_op,
            "aten::pow.Tensor_Scalar_out",
            aten.pow.Tensor_Scalar_out,
            (a, exponent),
            out=torch.empty(0),
            atol=4e-7 * magnitude(a) ** 3,
        )
    half = a.to(torch.float16)
    check_op(
        call_op,
        "aten::pow.Tensor_Tensor_out",
        aten.pow.Tensor_Tensor_out,
        (half, half[0] / 10),
        out=torch.empty(0, dtype=torch.float16),
    )


def test_pow_base_one_fills_any_out(call_op: Any) -> None:
    exponent = make_tensor(torch.float32, (4,), 1)
    for out_dtype in [torch.int32, torch.float32, torch.bool]:
        check_op(
            call_op,
            "aten::pow.Scalar_out",
            aten.pow.Scalar_out,
            (1, exponent),
            out=torch.empty(0, dtype=out_dtype),
        )


def test_pow_errors(call_op: Any) -> None:
    a = torch.ones(3, dtype=torch.bool)
    with raises(call_op, "not implemented for dtype Bool"):
        call_op("aten::pow.Tensor_Tensor_out", a, a, out=torch.empty(0, dtype=torch.bool))
    with raises(call_op, "can't be cast"):
        call_op(
            "aten::pow.Tensor_Scalar_out",
            torch.ones(3, dtype=torch.int32),
            2.5,
            out=torch.empty(0, dtype=torch.int32),
        )


# Every pairing of these covers pow's special cases: signed zeros, infinities, NaN, subnormals,
# +-1, negative bases with integral (odd and even) and fractional exponents, results that
# overflow or underflow, and exponents too large to be odd.
SPECIAL_VALUES = [
    0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1.5, -1.5, 10.0, 7.0, 0.1,
    1e-310, -1e-310, 1e-40, -1e-40, 1e-45, 1e300, 1e10, -1e10, 2.0**53, 2.0**53 + 2, 2.0**24 + 1,
    127.9, 130.0, -150.0, 1100.0, -1100.0, float("inf"), -float("inf"), float("nan"),
]  # fmt: skip


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pow_tensor_tensor_special_values(call_op: Any, dtype: torch.dtype) -> None:
    pairs = [(x, y) for x in SPECIAL_VALUES for y in SPECIAL_VALUES]
    base = torch.tensor([x for x, _ in pairs], dtype=dtype)
    exponent = torch.tensor([y for _, y in pairs], dtype=dtype)
    expected = check_op(
        call_op,
        "aten::pow.Tensor_Tensor_out",
        aten.pow.Tensor_Tensor_out,
        (base, exponent),
        out=torch.empty(0, dtype=dtype),
    )
    # Signs matter too: -0 and -inf come from odd exponents of negative bases.
    got = call_op("aten::pow.Tensor_Tensor_out", base, exponent, out=torch.empty(0, dtype=dtype))
    assert expected is not None
    signed = ~expected.isnan()
    assert torch.equal(got.signbit()[signed], expected.signbit()[signed])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("scalar_exponent", [False, True])
def test_pow_16_bit_special_values(call_op: Any, dtype: torch.dtype, scalar_exponent: bool) -> None:
    # Half and BFloat16 compute in float a chunk at a time: every pairing (over 1000 elements,
    # several chunks), and a one-element exponent broadcast along the row.
    pairs = [(x, y) for x in SPECIAL_VALUES for y in SPECIAL_VALUES]
    base = torch.tensor([x for x, _ in pairs], dtype=dtype)
    exponent = torch.tensor([y for _, y in pairs], dtype=dtype)
    if scalar_exponent:
        exponent = torch.tensor(2.5, dtype=dtype)
    check_op(
        call_op,
        "aten::pow.Tensor_Tensor_out",
        aten.pow.Tensor_Tensor_out,
        (base, exponent),
        out=torch.empty(0, dtype=dtype),
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pow_tensor_tensor_accuracy(call_op: Any, dtype: torch.dtype) -> None:
    # Wide bases and exponents (negative bases with integral exponents among them), against
    # float64 torch for float32 and against torch for float64.
    gen = torch.Generator().manual_seed(3)
    n = 20000
    base = torch.randn(n, generator=gen, dtype=torch.float64) * 10 ** torch.randint(
        -3, 4, (n,), generator=gen
    )
    exponent = torch.randn(n, generator=gen, dtype=torch.float64) * 8
    integral = torch.rand(n, generator=gen) < 0.5
    exponent = torch.where(integral, exponent.round(), exponent)
    base = torch.where(integral, base, base.abs())
    got = call_op(
        "aten::pow.Tensor_Tensor_out",
        base.to(dtype),
        exponent.to(dtype),
        out=torch.empty(0, dtype=dtype),
    )
    reference = torch.pow(base.to(dtype).double(), exponent.to(dtype).double()).to(dtype)
    # float32 rounds a result accurate to 1e-10 once; float64 is within about 2 ulp.
    rtol, atol = (1.2e-7, 1e-45) if dtype == torch.float32 else (1e-15, 1e-300)
    torch.testing.assert_close(got, reference, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_pow_broadcast_operands(call_op: Any, dtype: torch.dtype) -> None:
    # A broadcast base or exponent is repeated into a buffer a chunk (256 elements) at a time:
    # rows over several chunks with either operand, or both, a single element.
    gen = torch.Generator().manual_seed(5)
    row = torch.rand(1000, generator=gen, dtype=torch.float64).to(dtype) * 4
    single = torch.tensor(1.7, dtype=dtype)
    shapes = [
        (single, row),
        (row, single),
        (single, torch.tensor(-0.6, dtype=dtype)),
        (row.reshape(10, 1, 100), row[:300].reshape(1, 3, 100)),
        (row[:40].reshape(40, 1), row[:700].reshape(1, 700)),
    ]
    for base, exponent in shapes:
        check_op(
            call_op,
            "aten::pow.Tensor_Tensor_out",
            aten.pow.Tensor_Tensor_out,
            (base, exponent),
            out=torch.empty(0, dtype=dtype),
        )
    check_op(
        call_op,
        "aten::pow.Scalar_out",
        aten.pow.Scalar_out,
        (1.5, row),
        out=torch.empty(0, dtype=dtype),
    )
