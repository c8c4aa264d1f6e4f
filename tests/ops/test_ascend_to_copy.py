"""The Ascend dtype-converting copy (_to_copy) against torch, on both SoC profiles."""

from __future__ import annotations

import pytest
import torch
from ascend_checks import SIZES, SOCS, check_ascend, check_declines, float_dtypes, on_soc

NAME = "aten::_to_copy.out"


def device_dtypes(soc: str) -> list[torch.dtype]:
    return [*float_dtypes(soc), torch.int32]


def source(dtype: torch.dtype, size: int, seed: int) -> torch.Tensor:
    """Values that exercise the conversions: fractions of both signs (truncation toward zero),
    magnitudes past half's range, and int32 values past float's 24-bit mantissa."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.int32:
        return torch.randint(-(2**31), 2**31 - 1, (size,), generator=g, dtype=torch.int32)
    values = torch.randn(size, generator=g, dtype=torch.float64) * 3000
    return values.clamp(-60000, 60000).to(dtype) if dtype == torch.float16 else values.to(dtype)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_to_copy_every_dtype_pair(soc: str, size: int) -> None:
    with on_soc(soc):
        for src in device_dtypes(soc):
            x = source(src, size, size)
            for dst in device_dtypes(soc):
                out = torch.empty(0, dtype=dst)
                check_ascend(NAME, x.to(dst), x, out=out)


@pytest.mark.parametrize("soc", SOCS)
def test_to_copy_special_values(soc: str) -> None:
    inf, nan = float("inf"), float("nan")
    values = [nan, inf, -inf, -0.0, 0.0, 2.5, -2.5, 0.999, -0.999, 65504.0, 65520.0, 1e-8]
    values += [3e9, -3e9, 2.0**31, -(2.0**31), 2.0**31 - 128, -(2.0**31) - 256, 1e38, -1e38]
    with on_soc(soc):
        for src in float_dtypes(soc):
            x = torch.tensor(values * 11, dtype=torch.float64).to(src)
            for dst in device_dtypes(soc):
                # NaN, inf and out-of-range floats to int32 give what torch's CPU cast gives on
                # this host (INT32_MIN on x86).
                check_ascend(NAME, x.to(dst), x, out=torch.empty(0, dtype=dst))
        edges = torch.tensor([2**31 - 1, -(2**31), 2**24 + 1, -(2**24) - 3, 65519, 65520, 0, -1])
        x = edges.to(torch.int32).repeat(9)
        for dst in device_dtypes(soc):
            check_ascend(NAME, x.to(dst), x, out=torch.empty(0, dtype=dst))


def test_to_copy_keeps_shape_and_handles_empty() -> None:
    x = torch.randn(2, 3, 5)
    check_ascend(NAME, x.half(), x, out=torch.empty(0, dtype=torch.float16))
    check_ascend(NAME, x.to(torch.int32), x, out=torch.empty(7, dtype=torch.int32))
    e = torch.randn(3, 0, 5)
    check_ascend(NAME, e.half(), e, out=torch.empty(0, dtype=torch.float16))
    s = torch.tensor(-7.75)
    check_ascend(NAME, s.to(torch.int32), s, out=torch.empty(0, dtype=torch.int32))
    for fmt in (torch.preserve_format, torch.contiguous_format):
        check_ascend(NAME, x.half(), x, memory_format=fmt, out=torch.empty(0, dtype=torch.float16))


def test_to_copy_declines_what_it_cannot_take() -> None:
    x = torch.randn(2, 3, 4, 5)
    check_declines(NAME, x.double(), out=torch.empty(0), reason="dtype Double")
    check_declines(NAME, x, out=torch.empty(0, dtype=torch.int64), reason="dtype Long")
    check_declines(
        NAME,
        x,
        memory_format=torch.channels_last,
        out=torch.empty(0),
        reason="memory_format",
    )
    check_declines(NAME, x, non_blocking=True, out=torch.empty(0), reason="non_blocking")
    with on_soc("Ascend310P"):
        check_declines(NAME, x, out=torch.empty(0, dtype=torch.bfloat16), reason="BFloat16")
        check_declines(NAME, x.bfloat16(), out=torch.empty(0), reason="BFloat16")
