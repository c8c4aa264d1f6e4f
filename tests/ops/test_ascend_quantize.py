"""The Ascend kernels of ExecuTorch's affine quantize / dequantize operators (op_quantize) against
the portable kernels, bit for bit, on both SoC profiles with fallback disabled: per tensor (both
overloads), per channel along every axis (row and column staging, chunked rows and columns),
per token; every dtype the kernel takes, unaligned tails, several UB tiles per core, rounding
ties, +-inf, NaN, saturation, empty tensors, and each kind of input it declines."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
import torch
from ascend_checks import SIZES, SOCS, call_ascend, check_declines, float_dtypes, on_soc

import kiln
import kiln.ascend

Q = "quantized_decomposed::"
QUANTIZE = Q + "quantize_per_tensor.out"
QUANTIZE_T = Q + "quantize_per_tensor.Tensor_out"
DEQUANTIZE = Q + "dequantize_per_tensor.out"
DEQUANTIZE_T = Q + "dequantize_per_tensor.Tensor_out"
QUANTIZE_CH = Q + "quantize_per_channel.out"
DEQUANTIZE_CH = Q + "dequantize_per_channel.out"
QUANTIZE_TOK = Q + "quantize_per_token.out"
DEQUANTIZE_TOK = Q + "dequantize_per_token.out"

QUANTIZED_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.uint16, torch.int32)
DTYPE_NAMES = {torch.float32: "Float", torch.float16: "Half", torch.bfloat16: "BFloat16"}
INF = float("inf")
NAN = float("nan")


def bounds(dtype: torch.dtype) -> tuple[int, int]:
    info = torch.iinfo(dtype)
    return int(info.min), int(info.max)


def zero_point_for(dtype: torch.dtype) -> int:
    """Off the middle of the range; 0 for int32, whose full range a shift would leave."""
    if dtype == torch.int32:
        return 0
    low, high = bounds(dtype)
    return low + (high - low) // 2 + 3


def values(
    shape: tuple[int, ...], dtype: torch.dtype, seed: int, spread: float = 3.0
) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=generator, dtype=torch.float64) * spread).to(dtype)


def quantized(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    low, high = bounds(dtype)
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(low, high + 1, shape, generator=generator, dtype=torch.int64).to(dtype)


def channel_params(count: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """`count` scales in [0.005, 0.05) and Int zero points a few steps around zero_point_for."""
    generator = torch.Generator().manual_seed(seed)
    scales = torch.rand(count, generator=generator, dtype=torch.float64) * 0.045 + 0.005
    spread = 0 if dtype == torch.int32 else 5
    zero_points = torch.randint(-spread, spread + 1, (count,), generator=generator)
    return scales, (zero_points + zero_point_for(dtype)).int()


def bits(t: torch.Tensor) -> torch.Tensor:
    """The stored bits, so that -0.0 and 0.0 (and NaNs) compare as stored."""
    if not t.is_floating_point():
        return t
    return t.view(torch.int16 if t.element_size() == 2 else torch.int32)


def out_dtype_of(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> torch.dtype:
    """The out's dtype: out_dtype when given, a dequantize_per_token's output_dtype, the dtype
    argument of a quantization, else Float."""
    given: torch.dtype | None = kwargs.get("out_dtype")
    last: torch.dtype = args[-1]
    if given is not None:
        return given
    if name == DEQUANTIZE_TOK or name.startswith(Q + "quantize"):
        return last
    return torch.float32


def check_exact(name: str, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """The Ascend kernel's result equals the portable kernel's bit for bit; returns its launches.
    A launch that broke one of the emulator's rules would have failed the call."""
    dtype = out_dtype_of(name, args, kwargs)
    expected = torch.empty(0, dtype=dtype)
    kiln.call_op(name, *args, out=expected, backend="portable", **kwargs)
    out = torch.empty(0, dtype=dtype)
    launches = call_ascend(name, *args, out=out, **kwargs)
    assert out.shape == expected.shape
    torch.testing.assert_close(out, expected, rtol=0, atol=0, equal_nan=True)
    assert torch.equal(bits(out), bits(expected)), f"{name}: bits differ"
    if expected.numel() > 0:
        direction = "kiln_dequantize_" if "dequantize" in name else "kiln_quantize_"
        assert len(launches) == 1 and launches[0]["kernel"].startswith(direction), launches
        assert launches[0]["blocks"] >= 1 and launches[0]["vector_instructions"] > 0
    else:
        assert launches == []
    return launches


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    previous = kiln.ascend.seed()
    kiln.ascend.set_seed(seed)
    try:
        yield
    finally:
        kiln.ascend.set_seed(previous)


def finite_or_decline(soc: str, name: str, x: torch.Tensor, *args: Any, **kwargs: Any) -> None:
    """On Ascend310P an input holding inf or NaN is declined; elsewhere it is computed exactly."""
    if soc == "Ascend310P" and not bool(torch.isfinite(x).all()):
        dtype = out_dtype_of(name, (x, *args), kwargs)
        check_declines(
            name, x, *args, out=torch.empty(0, dtype=dtype), reason="input holding inf or NaN"
        )
    else:
        check_exact(name, x, *args, **kwargs)


def overflows(
    q: torch.Tensor, scales: Sequence[float], zero_points: Sequence[int], out_dtype: torch.dtype
) -> bool:
    """Whether a dequantization's float product can leave out_dtype's range for some channel:
    the largest |q - zero_point| the dtype allows (for Int32, the input's own values) times the
    channel's float scale, rounded to out_dtype (the rule the host declines by on 310P)."""
    low, high = bounds(q.dtype)
    if q.dtype == torch.int32 and q.numel() > 0:
        low, high = int(q.min()), int(q.max())
    for scale, zp in zip(scales, zero_points, strict=True):
        largest = torch.tensor(float(max(zp - low, high - zp)), dtype=torch.float32)
        product = largest * torch.tensor(scale, dtype=torch.float64).float()
        if not bool(torch.isfinite(product.to(out_dtype))):
            return True
    return False


def check_dequantize(
    soc: str, overflow: bool, name: str, *args: Any, out_dtype: torch.dtype, **kwargs: Any
) -> None:
    """Exact, but where a product can overflow on Ascend310P, whose vector unit saturates: there
    the kernel declines."""
    if soc == "Ascend310P" and overflow:
        check_declines(
            name,
            *args,
            out_dtype=out_dtype,
            out=torch.empty(0, dtype=out_dtype),
            reason=f"a scale of .*, whose products overflow {DTYPE_NAMES[out_dtype]}",
            **kwargs,
        )
    else:
        check_exact(name, *args, out_dtype=out_dtype, **kwargs)


def check_refused(name: str, *args: Any, out: torch.Tensor, message: str) -> None:
    """What the portable kernel refuses, the Ascend kernel declines, naming the refusal; with
    fallback the portable kernel reports it."""
    with pytest.raises(kiln.KilnError, match="does not take what the portable kernel refuses"):
        kiln.call_op(name, *args, out=out, backend="ascend", allow_fallback=False)
    with pytest.raises(kiln.KilnError, match=message):
        kiln.call_op(name, *args, out=out, backend="ascend")


# --- per tensor ----------------------------------------------------------------------------------


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_quantize_per_tensor_every_dtype(soc: str, size: int) -> None:
    with on_soc(soc):
        for float_dtype in float_dtypes(soc):
            x = values((size,), float_dtype, seed=size, spread=2.0)
            for dtype in QUANTIZED_DTYPES:
                low, high = bounds(dtype)
                check_exact(QUANTIZE, x, 0.0173, zero_point_for(dtype), low, high, dtype)
            scale = torch.tensor([0.0173], dtype=torch.float64)
            zero_point = torch.tensor([-3])
            check_exact(QUANTIZE_T, x, scale, zero_point, -128, 127, torch.int8)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_dequantize_per_tensor_every_dtype(soc: str, size: int) -> None:
    with on_soc(soc):
        for dtype in QUANTIZED_DTYPES:
            q = quantized((size,), dtype, seed=size)
            low, high = bounds(dtype)
            zp = zero_point_for(dtype)
            for out_dtype in float_dtypes(soc):
                overflow = overflows(q, [0.0173], [zp], out_dtype)
                check_dequantize(
                    soc, overflow, DEQUANTIZE, q, 0.0173, zp, low, high, dtype, out_dtype=out_dtype
                )
            # The scale and zero point as tensors, and no out_dtype: out's own dtype, Float.
            scale = torch.tensor([0.0173], dtype=torch.float32)
            zero_point = torch.tensor([zp], dtype=torch.int64)
            check_exact(DEQUANTIZE_T, q, scale, zero_point, low, high, dtype)


@pytest.mark.parametrize("soc", SOCS)
def test_quantize_rounds_ties_to_even_and_saturates(soc: str) -> None:
    # A power-of-two scale has an exact inverse: (k + 0.5) * scale lands on a real tie.
    ties = torch.arange(-300, 300, dtype=torch.float64) + 0.5
    with on_soc(soc):
        for float_dtype in float_dtypes(soc):
            for scale in (0.25, 1.0, 2.0**-7):
                x = (ties * scale).to(float_dtype)
                for dtype in QUANTIZED_DTYPES:
                    low, high = bounds(dtype)
                    zero_points = (
                        {0} if dtype == torch.int32 else {low, zero_point_for(dtype), high}
                    )
                    for zp in sorted(zero_points):
                        check_exact(QUANTIZE, x, scale, zp, low, high, dtype)
                check_exact(QUANTIZE, x, scale, 7, -100, 100, torch.int8)  # a narrower range
        out = torch.empty(0, dtype=torch.int8)
        x = torch.tensor([0.125, 0.375, -0.125, -0.375, 100.0, -100.0])
        call_ascend(QUANTIZE, x, 0.25, 0, -128, 127, torch.int8, out=out)
        torch.testing.assert_close(out, torch.tensor([0, 2, 0, -2, 127, -128], dtype=torch.int8))


@pytest.mark.parametrize("soc", SOCS)
def test_quantize_special_values(soc: str) -> None:
    specials = [NAN, INF, -INF, -0.0, 0.0, 1e-8, -1e-8, 3e9, -3e9, 1e38, -1e38, 65504.0, 0.5]
    with on_soc(soc):
        for float_dtype in float_dtypes(soc):
            every = torch.tensor(specials * 9, dtype=torch.float64).to(float_dtype)
            finite = every[torch.isfinite(every)]
            for dtype in QUANTIZED_DTYPES:
                low, high = bounds(dtype)
                zp = zero_point_for(dtype)
                check_exact(QUANTIZE, finite, 0.02, zp, low, high, dtype)
                finite_or_decline(soc, QUANTIZE, every, 0.02, zp, low, high, dtype)
            # Int32 ranges that the zero point's shift keeps inside int32: huge values clamp.
            check_exact(QUANTIZE, finite, 1.0, 1000, -(2**30), 2**30, torch.int32)
            check_exact(QUANTIZE, finite, 1e-30, -5, -(2**31), 2**31 - 6, torch.int32)
        # A scale whose float inverse is infinite: 0 * inf is NaN (quant_min), others saturate.
        x = torch.tensor([0.0, 1.0, -1.0, 1e-30, -0.0] * 13)
        if soc == "Ascend310P":
            out = torch.empty(0, dtype=torch.int8)
            reason = "a scale of 1e-40, whose float inverse is infinite"
            check_declines(QUANTIZE, x, 1e-40, 3, -128, 127, torch.int8, out=out, reason=reason)
        else:
            check_exact(QUANTIZE, x, 1e-40, 3, -128, 127, torch.int8)
            check_exact(QUANTIZE, x, 1e-50, 0, -(2**31), 2**31 - 1, torch.int32)


@pytest.mark.parametrize("soc", SOCS)
def test_dequantize_special_values(soc: str) -> None:
    with on_soc(soc):
        for dtype in QUANTIZED_DTYPES:
            low, high = bounds(dtype)
            q = torch.tensor([low, high, 0, 1, low + 1, high - 1, (low + high) // 2] * 11).to(dtype)
            # Int32: only a zero point of 0 keeps q - zero_point inside int32 for these values.
            zero_points = [0] if dtype == torch.int32 else sorted({low, high, max(low, 0)})
            for zp in zero_points:
                for out_dtype in float_dtypes(soc):
                    for scale in (1.0, 0.1, 1e-30, 3e-3):
                        overflow = overflows(q, [scale], [zp], out_dtype)
                        check_dequantize(
                            soc,
                            overflow,
                            DEQUANTIZE,
                            q,
                            scale,
                            zp,
                            low,
                            high,
                            dtype,
                            out_dtype=out_dtype,
                        )
        # Int32 differences inside int32, past float's 24 bits: one rounding to float.
        big = [2**30 + 1, -(2**30) - 3, 2**24 + 1, -(2**24) - 1, 0, 2**31 - 12346]
        q = torch.tensor(big * 13, dtype=torch.int32)
        for out_dtype in float_dtypes(soc):
            overflow = overflows(q, [0.5], [12345], out_dtype)
            check_dequantize(
                soc,
                overflow,
                DEQUANTIZE,
                q,
                0.5,
                12345,
                -(2**31),
                2**31 - 1,
                torch.int32,
                out_dtype=out_dtype,
            )
        # Products past the out's range: inf on Ascend910B, as in the portable kernel.
        q = torch.tensor([-128, 127, 0, 5] * 17, dtype=torch.int8)
        for scale, out_dtype in (
            (1000.0, torch.float16),
            (1e37, torch.float32),
            (1e300, torch.float32),
        ):
            overflow = overflows(q, [scale], [0], out_dtype)
            assert overflow
            check_dequantize(
                soc, overflow, DEQUANTIZE, q, scale, 0, -128, 127, torch.int8, out_dtype=out_dtype
            )


# --- per channel ---------------------------------------------------------------------------------

# (shape, axis): row staging (long runs, split over cores, longer than a UB tile), column staging
# (short runs: the parameters vary along the row; more columns than a UB tile holds), and runs
# gathered from several channels into rows.
CHANNEL_CASES = [
    ((64, 3, 3, 3), 0),  # a conv weight: runs of 27 (column staging)
    ((256, 4099), 0),  # a linear weight: one row per channel, unaligned
    ((3, 100_003), 0),  # a few long channels split into rows
    ((2, 300_000), 0),  # rows longer than a UB tile
    ((5, 4099, 3), 1),  # many channels, short runs
    ((7, 9, 130), 1),  # runs of 130
    ((97, 4099), -1),  # along the last dim: a parameter per column
    ((3, 20_000), -1),  # more columns than one UB tile: chunked columns
    ((101, 6100), -1),  # two chunks of columns, a core's tile of rows ending at the chunk's end
    ((2, 3, 5), -1),
    ((11,), 0),
]


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(("shape", "axis"), CHANNEL_CASES)
def test_quantize_per_channel(soc: str, shape: tuple[int, ...], axis: int) -> None:
    with on_soc(soc):
        for float_dtype in float_dtypes(soc):
            x = values(shape, float_dtype, seed=len(shape) + axis, spread=0.5)
            for dtype in (torch.int8, torch.uint8, torch.int16, torch.int32):
                scales, zps = channel_params(shape[axis], dtype, seed=shape[axis])
                low, high = bounds(dtype)
                check_exact(QUANTIZE_CH, x, scales, zps, axis, low, high, dtype)
        x = values(shape, torch.float32, seed=4)
        scales, zps = channel_params(shape[axis], torch.uint16, seed=5)
        check_exact(QUANTIZE_CH, x, scales.float(), zps.long(), axis, 0, 65535, torch.uint16)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(("shape", "axis"), CHANNEL_CASES)
def test_dequantize_per_channel(soc: str, shape: tuple[int, ...], axis: int) -> None:
    with on_soc(soc):
        for dtype in QUANTIZED_DTYPES:
            q = quantized(shape, dtype, seed=shape[axis])
            scales, zps = channel_params(shape[axis], dtype, seed=3)
            low, high = bounds(dtype)
            for out_dtype in float_dtypes(soc):
                overflow = overflows(q, scales.float().tolist(), zps.tolist(), out_dtype)
                for zero_points in (zps, None):
                    check_dequantize(
                        soc,
                        overflow,
                        DEQUANTIZE_CH,
                        q,
                        scales.float(),
                        zero_points,
                        axis,
                        low,
                        high,
                        dtype,
                        out_dtype=out_dtype,
                    )


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(("shape", "axis"), [((37, 300), 0), ((3, 37, 2), 1), ((300, 37), -1)])
def test_per_channel_ties_and_specials(soc: str, shape: tuple[int, ...], axis: int) -> None:
    channels = shape[axis]
    # Power-of-two scales: (k + 0.5) * scale is a real tie for every channel.
    scales = torch.tensor([2.0 ** -(c % 5) for c in range(channels)], dtype=torch.float64)
    zps = torch.tensor([(c * 7) % 21 - 10 for c in range(channels)], dtype=torch.int32)
    view = [1] * len(shape)
    view[axis] = channels
    steps = torch.arange(torch.Size(shape).numel(), dtype=torch.float64) % 300 - 150 + 0.5
    x = steps.reshape(shape) * scales.reshape(view)
    with on_soc(soc):
        for float_dtype in float_dtypes(soc):
            check_exact(QUANTIZE_CH, x.to(float_dtype), scales, zps, axis, -128, 127, torch.int8)
            check_exact(
                QUANTIZE_CH, x.to(float_dtype), scales, zps + 128, axis, 0, 255, torch.uint8
            )
        special = x.float().clone()
        special.view(-1)[::7] = NAN
        special.view(-1)[1::7] = INF
        special.view(-1)[2::7] = -INF
        finite_or_decline(soc, QUANTIZE_CH, special, scales, zps, axis, -128, 127, torch.int8)


# --- per token -----------------------------------------------------------------------------------


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("shape", [(5, 7, 16), (17, 4096), (1, 100_003), (3,), (64, 130)])
def test_per_token(soc: str, shape: tuple[int, ...]) -> None:
    tokens = torch.Size(shape[:-1]).numel()
    token_shape = shape[:-1] + (1,)
    with on_soc(soc):
        for dtype in (torch.int8, torch.uint8, torch.int16):
            low, high = bounds(dtype)
            scales, zps = channel_params(tokens, dtype, seed=tokens)
            scales, zps = scales.reshape(token_shape), zps.reshape(token_shape).long()
            q = quantized(shape, dtype, seed=10)
            for float_dtype in float_dtypes(soc):
                x = values(shape, float_dtype, seed=9, spread=0.3)
                check_exact(QUANTIZE_TOK, x, scales, zps, low, high, dtype)
                check_exact(DEQUANTIZE_TOK, q, scales, zps, low, high, dtype, float_dtype)


# --- shapes, block order, launches ---------------------------------------------------------------


@pytest.mark.parametrize("soc", SOCS)
def test_empty_and_scalar_tensors(soc: str) -> None:
    with on_soc(soc):
        for shape in ((0,), (3, 0, 5), ()):
            x = values(shape, torch.float32, seed=1)
            check_exact(QUANTIZE, x, 0.1, 2, -128, 127, torch.int8)
            q = quantized(shape, torch.int8, seed=2)
            check_exact(DEQUANTIZE, q, 0.1, 2, -128, 127, torch.int8, out_dtype=torch.float16)
        x = values((3, 0, 5), torch.float32, seed=1)
        scales, zps = channel_params(3, torch.int8, seed=1)
        check_exact(QUANTIZE_CH, x, scales, zps, 0, -128, 127, torch.int8)
        scales, zps = channel_params(5, torch.int8, seed=1)
        check_exact(
            DEQUANTIZE_CH,
            quantized((3, 0, 5), torch.int8, 1),
            scales,
            zps,
            2,
            -128,
            127,
            torch.int8,
            out_dtype=torch.float32,
        )
        check_exact(
            QUANTIZE_TOK,
            values((0, 4), torch.float32, 1),
            torch.empty(0),
            torch.empty(0, dtype=torch.int64),
            -128,
            127,
            torch.int8,
        )


def test_results_do_not_depend_on_block_order() -> None:
    x = values((3, 100_003), torch.float16, seed=3)
    scales, zps = channel_params(100_003, torch.int8, seed=4)
    q = quantized((4099, 97), torch.uint8, seed=5)
    for seed in (1, 2, 3):
        with seeded(seed):
            launches = check_exact(QUANTIZE_CH, x, scales, zps, -1, -128, 127, torch.int8)
            assert launches[0]["blocks"] > 1
            launches = check_exact(
                DEQUANTIZE_CH,
                q,
                scales[:97].float(),
                None,
                1,
                0,
                255,
                torch.uint8,
                out_dtype=torch.float16,
            )
            assert launches[0]["blocks"] > 1


def test_launch_report() -> None:
    """A per-tensor int8 activation on Ascend910B: every core, the bytes moved once (the rows
    padded to 64 elements); and an int8 linear weight dequantized per channel."""
    count = 1 << 20
    x = values((count,), torch.float16, seed=7)
    launches = check_exact(QUANTIZE, x, 0.02, 0, -128, 127, torch.int8)
    report = launches[0]
    assert report["kernel"] == "kiln_quantize_half" and report["blocks"] == 48
    padded = report["ub_to_gm_bytes"]
    assert count <= padded <= count + 48 * 64 and report["gm_to_ub_bytes"] == 2 * padded
    assert report["ub_high_water_bytes"] <= 184 * 1024
    q = quantized((4096, 4096), torch.int8, seed=8)
    scales, _ = channel_params(4096, torch.int8, seed=9)
    launches = check_exact(
        DEQUANTIZE_CH, q, scales.float(), None, 0, -128, 127, torch.int8, out_dtype=torch.float16
    )
    report = launches[0]
    assert report["kernel"] == "kiln_dequantize_half" and report["blocks"] == 48
    assert report["gm_to_ub_bytes"] == q.numel() and report["ub_to_gm_bytes"] == 2 * q.numel()


# --- declines ------------------------------------------------------------------------------------


def test_declines_what_it_cannot_take() -> None:
    x = values((4, 6), torch.float32, seed=1)
    q = quantized((4, 6), torch.int8, seed=2)
    i8 = torch.empty(0, dtype=torch.int8)
    f64 = torch.empty(0, dtype=torch.float64)
    check_declines(QUANTIZE, x.double(), 0.1, 0, -128, 127, torch.int8, out=i8, reason="Double")
    check_declines(
        DEQUANTIZE,
        q,
        0.1,
        0,
        -128,
        127,
        torch.int8,
        out_dtype=torch.float64,
        out=f64,
        reason="Double",
    )
    # An Int32 zero point that shifts the full int32 range out of int32.
    i32 = torch.empty(0, dtype=torch.int32)
    reason = "an Int32 zero point of 5"
    check_declines(QUANTIZE, x, 0.1, 5, -(2**31), 2**31 - 1, torch.int32, out=i32, reason=reason)
    scales, zps = torch.full((4,), 0.1), torch.tensor([0, 0, -3, 0], dtype=torch.int32)
    reason = "an Int32 zero point of -3"
    check_declines(
        QUANTIZE_CH, x, scales, zps, 0, -(2**31), 2**31 - 1, torch.int32, out=i32, reason=reason
    )
    # Int32 values whose difference with the zero point leaves int32.
    qi = torch.tensor([2**31 - 1, 0, -5] * 4, dtype=torch.int32)
    check_declines(
        DEQUANTIZE,
        qi,
        0.1,
        -7,
        -(2**31),
        2**31 - 1,
        torch.int32,
        out=torch.empty(0),
        reason=re.escape("Int32 values in [-5, 2147483647] with a zero point of -7"),
    )
    # What the portable kernel refuses, it reports.
    check_refused(QUANTIZE, x, 0.1, 0, 5, 4, torch.int8, out=i8, message="quant_min 5 is greater")
    check_refused(QUANTIZE, x, -0.1, 0, -128, 127, torch.int8, out=i8, message="scale is -0.1")
    channels_last = values((2, 3, 4, 5), torch.float32, 3).to(memory_format=torch.channels_last)
    check_refused(
        QUANTIZE, channels_last, 0.1, 0, -128, 127, torch.int8, out=i8, message="not contiguous"
    )
    check_refused(
        QUANTIZE_CH,
        x,
        torch.ones(5),
        torch.zeros(5, dtype=torch.int32),
        0,
        -128,
        127,
        torch.int8,
        out=i8,
        message="scale has 5 elements",
    )
    check_refused(
        DEQUANTIZE, q, 0.1, 0, 0, 255, torch.uint8, out=torch.empty(0), message="input has dtype"
    )
    check_refused(
        QUANTIZE,
        x,
        0.1,
        0,
        -128,
        127,
        torch.int8,
        out=torch.empty(0, dtype=torch.uint8),
        message="out has dtype",
    )
    with on_soc("Ascend310P"):
        check_declines(
            QUANTIZE, x.bfloat16(), 0.1, 0, -128, 127, torch.int8, out=i8, reason="BFloat16"
        )
        check_declines(
            DEQUANTIZE,
            q,
            0.1,
            0,
            -128,
            127,
            torch.int8,
            out_dtype=torch.bfloat16,
            out=torch.empty(0, dtype=torch.bfloat16),
            reason="BFloat16",
        )
