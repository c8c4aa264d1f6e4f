"""Half and BFloat16 conversions at their edges, bit for bit against torch: the vector rows
(F16C, NEON or bit operations) and their tails must round exactly as ATen does, to nearest even,
keeping subnormals, signed zeros and infinities, and NaN as NaN."""

from __future__ import annotations

from typing import Any

import pytest
import torch

F16 = torch.float16
BF16 = torch.bfloat16
BITS = {F16: torch.int16, BF16: torch.int16, torch.float32: torch.int32}


def _float_bits(values: list[int]) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.int64).to(torch.int32).view(torch.float32)


def _half_edges() -> torch.Tensor:
    """float32 values at Half's edges: subnormals and the halfway points between them, the
    normal/subnormal boundary, ties to even, values rounding up into the next binade, the
    largest finite value and the first that overflows, signed zeros, infinities and NaN."""
    tiny = 2.0**-24
    values = [
        0.0, -0.0, tiny, -tiny, tiny / 2, tiny * 0.5000001, tiny * 1.5, tiny * 2.5,
        1023 * tiny, 1023.5 * tiny, 2.0**-14, 2.0**-14 * (1 - 2**-12), 2.0**-15,
        1.0, 1 + 2**-11, 1 + 3 * 2**-11, 1 + 2**-10, 2047.5, 2047.49, 4095.9, 2049.0, 2051.0,
        65504.0, 65519.0, 65519.996, 65520.0, 65536.0, 1e10, -65520.0, 1e-10, -1e-10,
        float("inf"), float("-inf"), float("nan"), -float("nan"),
    ]  # fmt: skip
    edges = torch.tensor(values, dtype=torch.float32)
    # float32 bit patterns around every Half rounding boundary in [2^-26, 2^17), and a spread
    # of patterns over the whole float range.
    boundaries = [(e << 23) | (m << 13) | 0x1000 for e in range(101, 144) for m in (0, 1, 0x3FF)]
    near = [b + d for b in boundaries for d in (-1, 0, 1)]
    spread = list(range(0, 1 << 32, 65537 * 97))
    patterns = _float_bits(near + [p | (1 << 31) for p in near] + spread)
    return torch.cat([edges, patterns])


def _bfloat16_edges() -> torch.Tensor:
    """float32 values at BFloat16's edges: ties to even, carries into the next binade and into
    infinity, float subnormals, signed zeros, infinities and NaN (quiet and signalling)."""
    boundaries = [
        (e << 23) | (m << 16) | 0x8000 for e in (0, 1, 100, 127, 200, 254) for m in (0, 1, 0x7F)
    ]
    near = [b + d for b in boundaries for d in (-1, 0, 1)]
    specials = [0x7F7FFFFF, 0x7F7F8000, 0x7F800000, 0x7F800001, 0x7FC00000, 0x7FBFFFFF, 0x00000001]
    spread = list(range(0, 1 << 32, 65537 * 89))
    patterns = near + specials + spread
    return _float_bits(patterns + [p | (1 << 31) for p in patterns])


EDGES = {F16: _half_edges, BF16: _bfloat16_edges}


def _assert_same_bits(actual: torch.Tensor, expected: torch.Tensor) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    nan = torch.isnan(expected)
    assert torch.equal(torch.isnan(actual), nan), "NaN positions differ"
    bits = BITS[expected.dtype]
    got, want = actual[~nan].view(bits), expected[~nan].view(bits)
    if not torch.equal(got, want):
        index = int((got != want).nonzero()[0])
        raise AssertionError(
            f"{int((got != want).sum())} values differ, first {actual[~nan][index]!r} "
            f"(bits {int(got[index]) & 0xFFFFFFFF:#x}) != {expected[~nan][index]!r} "
            f"(bits {int(want[index]) & 0xFFFFFFFF:#x})"
        )


def _lengths(values: torch.Tensor) -> list[torch.Tensor]:
    """The values whole (vector blocks and a tail), and prefixes of every tail length."""
    return [values] + [values[:n] for n in range(1, 18)]


@pytest.mark.parametrize("dtype", [F16, BF16])
def test_narrowing_rounds_like_torch(call_op: Any, dtype: torch.dtype) -> None:
    for values in _lengths(EDGES[dtype]()):
        out = call_op("aten::_to_copy.out", values, out=torch.empty(0, dtype=dtype))
        _assert_same_bits(out, values.to(dtype))


@pytest.mark.parametrize("dtype", [F16, BF16])
def test_widening_every_bit_pattern(call_op: Any, dtype: torch.dtype) -> None:
    every = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16).view(dtype)
    for values in _lengths(every):
        out = call_op("aten::_to_copy.out", values, out=torch.empty(0))
        _assert_same_bits(out, values.float())


@pytest.mark.parametrize("dtype", [F16, BF16])
@pytest.mark.parametrize("op", ["aten::add.out", "aten::mul.out"])
def test_arithmetic_rounds_like_torch(call_op: Any, dtype: torch.dtype, op: str) -> None:
    """Same-dtype arithmetic widens, computes in float and narrows once, as ATen does; into a
    Float out the result is the 16-bit value widened."""
    values = EDGES[dtype]().to(dtype)
    others = values.flip(0)
    reference = getattr(torch.ops.aten, op.split("::")[1].split(".")[0])
    for a, b in zip(_lengths(values), _lengths(others), strict=True):
        for out_dtype in (dtype, torch.float32):
            expected = reference(a, b).to(out_dtype)
            out = call_op(op, a, b, out=torch.empty(0, dtype=out_dtype))
            _assert_same_bits(out, expected)


@pytest.mark.parametrize("dtype", [F16, BF16])
@pytest.mark.parametrize("scalar", [0.5, 3.0, 65520.0, -1e-8])
def test_scalar_multiply_is_exact_in_float(call_op: Any, dtype: torch.dtype, scalar: float) -> None:
    """mul by a Python scalar reads it into float unrounded (65520 is inf in Half), as ATen."""
    for a in _lengths(EDGES[dtype]().to(dtype)):
        out = call_op("aten::mul.Scalar_out", a, scalar, out=torch.empty(0, dtype=dtype))
        _assert_same_bits(out, torch.ops.aten.mul.Scalar(a, scalar))


@pytest.mark.parametrize("dtype", [F16, BF16])
def test_mixed_with_float32_rounds_like_torch(call_op: Any, dtype: torch.dtype) -> None:
    values = EDGES[dtype]()
    for a in _lengths(values):
        narrow = a.to(dtype)
        out = call_op("aten::add.out", narrow, a, out=torch.empty(0))
        _assert_same_bits(out, narrow + a)
        out = call_op("aten::add.out", narrow, a, out=torch.empty(0, dtype=dtype))
        _assert_same_bits(out, (narrow + a).to(dtype))
