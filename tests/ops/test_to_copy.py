"""aten::_to_copy.out against torch: every dtype pair, memory_format checks."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import ALL_DTYPES, dtypes, make_tensor, out_like, shapes, tensors

import kiln

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


@SETTINGS
@given(data=st.data())
def test_to_copy_matches_torch(call_op: Any, data: Any) -> None:
    out_dtype = data.draw(dtypes)
    src_dtype = data.draw(dtypes)
    # Casting nan/inf or out-of-range floats to an integer is platform-defined in C++; keep the
    # float values in range there.
    to_int = not out_dtype.is_floating_point and out_dtype != torch.bool
    a = data.draw(
        tensors(
            dtype=src_dtype,
            shape=shapes(0, 4, 0, 6),
            special=not to_int and data.draw(st.booleans()),
            magnitude=20.0 if to_int else 1000.0,
        )
    )
    presized = data.draw(st.booleans())
    out = out_like(out_dtype, tuple(a.shape) if presized else None)
    fmt = data.draw(st.sampled_from([None, torch.preserve_format, torch.contiguous_format]))
    non_blocking = data.draw(st.booleans())
    check_op(
        call_op,
        "aten::_to_copy.out",
        aten._to_copy.out,
        (a,),
        {"memory_format": fmt, "non_blocking": non_blocking},
        out=out,
    )


@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ALL_DTYPES)
def test_to_copy_dtype_pairs_long(call_op: Any, src: torch.dtype, dst: torch.dtype) -> None:
    # Long enough for the chunked conversion to take several chunks and a tail.
    a = (torch.arange(-700, 700) * 0.37).to(src)
    if not dst.is_floating_point and dst != torch.bool and src.is_floating_point:
        a = a.clamp(-100, 100) if src != torch.bool else a
    out = call_op("aten::_to_copy.out", a, out=torch.empty(0, dtype=dst))
    torch.testing.assert_close(out, a.to(dst), rtol=0, atol=0)


def test_to_copy_channels_last_rank(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="required rank 4 tensor"):
        call_op(
            "aten::_to_copy.out",
            torch.ones(2, 3),
            memory_format=torch.channels_last,
            out=torch.empty(0),
        )
    out = call_op(
        "aten::_to_copy.out",
        torch.ones(1, 2, 3, 4),
        memory_format=torch.channels_last,
        out=torch.empty(0, dtype=torch.float16),
    )
    assert out.dtype == torch.float16 and out.shape == (1, 2, 3, 4)


@pytest.mark.parametrize(
    ("src", "dst"),
    [
        (torch.float32, torch.bool),
        (torch.float64, torch.bool),
        (torch.float32, torch.float64),
        (torch.float64, torch.float32),
    ],
)
def test_to_copy_specials_long(call_op: Any, src: torch.dtype, dst: torch.dtype) -> None:
    """The direct conversion loops keep NaN (true as Bool), infinities, signed zeros and
    subnormals as torch does, through vector bodies and tails."""
    a = make_tensor(src, (1037,), 3, special=True, magnitude=1e30)
    a[::7] = torch.finfo(src).tiny / 4  # subnormal in src
    a[1::7] = -0.0
    out = call_op("aten::_to_copy.out", a, out=torch.empty(0, dtype=dst))
    expected = a.to(dst)
    torch.testing.assert_close(out, expected, rtol=0, atol=0, equal_nan=True)
    if dst.is_floating_point:
        assert torch.equal(out.signbit(), expected.signbit())


@pytest.mark.parametrize("length", [1, 15, 16, 17, 33, 1000, 4099])
def test_float32_to_16_bit_floats_bit_for_bit(call_op: Any, length: int) -> None:
    """Narrowing float32 rounds to nearest even exactly as torch does, on random bit patterns
    (every exponent, subnormals, infinities, NaN), through the vector loops (BFloat16's AVX2 one
    sixteen at a time, Half's F16C) and their tails."""
    gen = torch.Generator().manual_seed(length)
    bits = torch.randint(-(2**31), 2**31, (length,), dtype=torch.int64, generator=gen)
    values = bits.to(torch.int32).view(torch.float32)
    # Exact ties: the dropped half is 0x8000 (BFloat16) with an even and an odd kept part.
    values[: length // 4] = (bits[: length // 4].to(torch.int32) & ~0xFFFF | 0x8000).view(
        torch.float32
    )
    nan = values.isnan()
    for dtype in [torch.bfloat16, torch.float16]:
        out = call_op("aten::_to_copy.out", values, out=torch.empty(0, dtype=dtype))
        expected = values.to(dtype)
        assert torch.equal(out.view(torch.int16)[~nan], expected.view(torch.int16)[~nan]), dtype
        assert bool(out[nan].isnan().all()), dtype
