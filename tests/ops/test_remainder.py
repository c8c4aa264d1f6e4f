"""aten::remainder and aten::fmod (.Tensor_out and .Scalar_out) against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import SETTINGS, check_tensor_scalar, check_tensor_tensor, raises, small_scalars
from hypothesis import given
from hypothesis import strategies as st
from op_compare import check_op, is_portable
from strategies import make_tensor

aten = torch.ops.aten
OPS = ["remainder", "fmod"]


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_modulo_tensor_matches_torch(call_op: Any, op: str, data: Any) -> None:
    torch_op = getattr(aten, op).Tensor_out
    check_tensor_tensor(call_op, data, f"aten::{op}.Tensor_out", torch_op, other_int_range=(-3, 3))


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_modulo_scalar_matches_torch(call_op: Any, op: str, data: Any) -> None:
    torch_op = getattr(aten, op).Scalar_out
    check_tensor_scalar(call_op, data, f"aten::{op}.Scalar_out", torch_op, scalars=small_scalars)


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64, torch.uint8])
def test_modulo_integer_signs(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (4, 300), 1, int_range=(-100, 100))
    b = make_tensor(dtype, (300,), 2, int_range=(-7, 7))
    b[b == 0] = 3
    for op in OPS:
        out = torch.empty(0, dtype=dtype)
        check_op(call_op, f"aten::{op}.Tensor_out", getattr(aten, op).Tensor_out, (a, b), out=out)


def modulo_edges(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Pairs for floating modulo: exact multiples (signed zero results), quotients about 2^24 and
    far beyond (the exact path), tiny and huge operands, zero and infinite divisors, NaN."""
    inf, nan = float("inf"), float("nan")
    pairs = [
        (7.5, 2.0),
        (-7.5, 2.0),
        (7.5, -2.0),
        (-7.5, -2.0),
        (6.0, 3.0),
        (-6.0, 3.0),
        (6.0, -3.0),
        (0.0, 3.0),
        (-0.0, 3.0),
        (-0.0, -3.0),
        (16777215.0, 1.0),
        (16777216.0, 1.0),
        (16777217.0, 3.0),
        (3.0e38, 7.0),
        (1.0e-38, 3.0e-39),
        (-1.0e30, 3.3),
        (0.1, 1.0e-7),
        (5.0, 0.0),
        (-5.0, 0.0),
        (0.0, 0.0),
        (inf, 2.0),
        (-inf, 2.0),
        (5.0, inf),
        (-5.0, inf),
        (5.0, -inf),
        (-0.0, inf),
        (nan, 2.0),
        (2.0, nan),
        (1.0e-45, 1.0),
        (-1.0e-45, 1.0),
    ]
    a = torch.tensor([x for x, _ in pairs], dtype=torch.float64).to(dtype)
    b = torch.tensor([y for _, y in pairs], dtype=torch.float64).to(dtype)
    return a, b


def assert_same_values(got: torch.Tensor, expected: torch.Tensor) -> None:
    """Equal, NaN where torch has NaN, and zeros of torch's sign."""
    torch.testing.assert_close(got, expected, rtol=0, atol=0, equal_nan=True)
    zeros = expected == 0
    assert torch.equal(torch.signbit(got[zeros]), torch.signbit(expected[zeros]))


def exact_modulo(op: str, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """C's fmod of x and y, exact (computed in double, where the remainder of two floats is
    exact), and for remainder Python's sign fix-up rounded once in x's dtype."""
    rest = torch.fmod(x.double(), y.double()).to(x.dtype)
    if op == "fmod":
        return rest
    fix = (rest != 0) & ((y < 0) != (rest < 0))
    return torch.where(fix, rest + y, rest)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_modulo_floating_is_exact(call_op: Any, op: str, dtype: torch.dtype) -> None:
    # fmod is exact, and remainder up to its one rounding of rest + other: Kiln's vector loop (the
    # remainder in double) and its exact path (the C library's fmod) must both give the exact
    # values, on random operands over many magnitudes (long rows: whole blocks and a tail, some
    # blocks holding an edge case) and on the edge cases themselves, as tensor and scalar other.
    # ATen's own float loop gives NaN once the quotient leaves float's range (3e38 by 1e-3), so
    # its backend is held to itself.
    gen = torch.Generator().manual_seed(3)
    a = torch.randn(5000, generator=gen) * torch.exp2(
        torch.randint(-20, 30, (5000,), generator=gen)
    )
    b = torch.randn(5000, generator=gen) * torch.exp2(
        torch.randint(-10, 12, (5000,), generator=gen)
    )
    edge_a, edge_b = modulo_edges(torch.float32)
    a[1000 : 1000 + len(edge_a)] = edge_a
    b[1000 : 1000 + len(edge_b)] = edge_b
    # Exact multiples, in blocks without an edge case, so the vector loop makes the signed zeros.
    divisors = torch.randint(1, 64, (3000,), generator=gen) * torch.where(b[:3000] < 0, -0.25, 0.25)
    multiples = torch.randint(-40, 40, (3000,), generator=gen) * divisors
    cases = [
        (a.to(dtype), b.to(dtype)),
        modulo_edges(dtype),
        (multiples.to(dtype), divisors.to(dtype)),
    ]
    cases += [(a.to(dtype), torch.tensor(s, dtype=dtype)) for s in [2.5, -3.0, 1.0e-3]]
    for x, y in cases:
        scalar = y.dim() == 0
        name = f"aten::{op}.{'Scalar_out' if scalar else 'Tensor_out'}"
        other = y.item() if scalar else y
        got = call_op(name, x, other, out=torch.empty(0, dtype=dtype))
        if is_portable(call_op):
            expected = exact_modulo(op, x, y)
        else:
            torch_op = getattr(aten, op).Scalar_out if scalar else getattr(aten, op).Tensor_out
            expected = torch_op(x, other, out=torch.empty(0, dtype=dtype))
        assert_same_values(got, expected)


@pytest.mark.parametrize("op", OPS)
def test_modulo_integer_by_zero(call_op: Any, op: str) -> None:
    a = torch.tensor([5, -5, 0], dtype=torch.int32)
    b = torch.tensor([2, 0, 1], dtype=torch.int32)
    with raises(call_op, "ZeroDivisionError"):
        call_op(f"aten::{op}.Tensor_out", a, b, out=torch.empty(0, dtype=torch.int32))
    with raises(call_op, "ZeroDivisionError"):
        call_op(f"aten::{op}.Scalar_out", a, 0, out=torch.empty(0, dtype=torch.int32))
    # Floats divide by zero to nan, as in torch.
    check_op(
        call_op,
        f"aten::{op}.Tensor_out",
        getattr(aten, op).Tensor_out,
        (a.float(), b.float()),
        out=torch.empty(0),
    )


def test_modulo_rejects_bool(call_op: Any) -> None:
    a = torch.ones(2, dtype=torch.bool)
    for op in OPS:
        with raises(call_op, "not implemented for dtype Bool"):
            call_op(f"aten::{op}.Tensor_out", a, a, out=torch.empty(0, dtype=torch.bool))
