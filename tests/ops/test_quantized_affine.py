"""ExecuTorch's quantize / dequantize operators (quantized_decomposed::, per tensor, per channel,
per token) against ExecuTorch 1.5.1's own kernels, bit for bit, and torch's reference
definitions (within one quantum: torch forms 1 / scale in double, ExecuTorch in float, so a
value at a rounding tie may land one step apart); their edge cases and refusals."""

from __future__ import annotations

from typing import Any

import pytest
import quantized_reference as ref
import torch
from op_compare import raises

Q = "quantized_decomposed::"


def quantize_per_tensor(call_op: Any, x: torch.Tensor, scale: float, zp: int, dtype, tensors=False):
    low, high = ref.bounds(dtype)
    out = torch.empty(0, dtype=dtype)
    if tensors:
        s, z = torch.tensor([scale], dtype=torch.float64), torch.tensor([zp])
        return call_op(Q + "quantize_per_tensor.Tensor_out", x, s, z, low, high, dtype, out=out)
    return call_op(Q + "quantize_per_tensor.out", x, scale, zp, low, high, dtype, out=out)


def executorch_quantize_per_tensor(x: torch.Tensor, scale: float, zp: int, dtype) -> torch.Tensor:
    low, high = ref.bounds(dtype)
    out = torch.empty(x.shape, dtype=dtype)
    return ref.OPS.quantize_per_tensor.out(
        ref.executorch_input(x), scale, zp, low, high, dtype, out=out
    )


@pytest.mark.parametrize("float_dtype", ref.FLOAT_DTYPES)
@pytest.mark.parametrize("dtype", ref.QUANTIZED_DTYPES)
@pytest.mark.parametrize("tensors", [False, True])
def test_quantize_per_tensor(call_op: Any, float_dtype, dtype, tensors: bool) -> None:
    x = ref.random_values((37, 53), float_dtype, seed=1)
    scale, zp = 0.0173, ref.zero_point_for(dtype)
    out = quantize_per_tensor(call_op, x, scale, zp, dtype, tensors)
    torch.testing.assert_close(
        out, executorch_quantize_per_tensor(x, scale, zp, dtype), rtol=0, atol=0
    )
    if float_dtype != torch.float64:  # torch's reference takes 16- and 32-bit floats only
        low, high = ref.bounds(dtype)
        expected = ref.OPS.quantize_per_tensor.default(x, scale, zp, low, high, dtype)
        torch.testing.assert_close(out.long(), expected.long(), rtol=0, atol=1)


def test_quantize_rounds_ties_to_even_and_saturates(call_op: Any) -> None:
    # 0.25 has an exact inverse, so x / scale is exact: the ties are real ties.
    x = torch.tensor([0.125, 0.375, -0.125, -0.375, 100.0, -100.0, float("inf"), -float("inf")])
    out = quantize_per_tensor(call_op, x, 0.25, 0, torch.int8)
    torch.testing.assert_close(
        out, torch.tensor([0, 2, 0, -2, 127, -128, 127, -128], dtype=torch.int8)
    )


def test_quantize_nan_gives_quant_min(call_op: Any) -> None:
    x = torch.tensor([float("nan"), 1.0])
    out = call_op(
        Q + "quantize_per_tensor.out",
        x,
        0.5,
        0,
        -100,
        100,
        torch.int8,
        out=torch.empty(0, dtype=torch.int8),
    )
    torch.testing.assert_close(out, torch.tensor([-100, 2], dtype=torch.int8))


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 5), (1 << 20,)])
def test_quantize_per_tensor_shapes(call_op: Any, shape: tuple[int, ...]) -> None:
    x = ref.random_values(shape, torch.float32, seed=2)
    out = quantize_per_tensor(call_op, x, 0.02, -3, torch.int8)
    assert out.shape == x.shape
    torch.testing.assert_close(
        out, executorch_quantize_per_tensor(x, 0.02, -3, torch.int8), rtol=0, atol=0
    )


def dequantize_per_tensor(call_op: Any, q, scale, zp, out_dtype, given: bool, tensors=False):
    low, high = ref.bounds(q.dtype)
    out = torch.empty(0, dtype=out_dtype)
    kw = {"out_dtype": out_dtype} if given else {}
    if tensors:
        s, z = torch.tensor([scale], dtype=torch.float64), torch.tensor([zp])
        return call_op(
            Q + "dequantize_per_tensor.Tensor_out", q, s, z, low, high, q.dtype, out=out, **kw
        )
    return call_op(Q + "dequantize_per_tensor.out", q, scale, zp, low, high, q.dtype, out=out, **kw)


@pytest.mark.parametrize("dtype", ref.QUANTIZED_DTYPES)
@pytest.mark.parametrize("out_dtype", ref.FLOAT_DTYPES)
@pytest.mark.parametrize("given", [False, True])
@pytest.mark.parametrize("tensors", [False, True])
def test_dequantize_per_tensor(call_op: Any, dtype, out_dtype, given: bool, tensors: bool) -> None:
    q = ref.random_quantized((29, 31), dtype, seed=3)
    scale, zp = 0.0173, ref.zero_point_for(dtype)
    out = dequantize_per_tensor(call_op, q, scale, zp, out_dtype, given, tensors)
    low, high = ref.bounds(dtype)
    # ExecuTorch computes in float and rounds once into out; it has no BFloat16 out, whose
    # result is its float one rounded.
    et_dtype = torch.float32 if out_dtype == torch.bfloat16 else out_dtype
    expected = ref.OPS.dequantize_per_tensor.out(
        q, scale, zp, low, high, dtype, out_dtype=None, out=torch.empty(q.shape, dtype=et_dtype)
    ).to(out_dtype)
    torch.testing.assert_close(out, expected, rtol=0, atol=0)
    reference = ref.OPS.dequantize_per_tensor.default(q, scale, zp, low, high, dtype)
    torch.testing.assert_close(
        out.float(),
        reference.to(out_dtype).float(),  # int32 values overflow a 16-bit float alike
        # torch rounds q, q - zero_point and the product to float (int32 values round on
        # conversion): three float roundings; into 16-bit outs, the product's too.
        rtol=3.6e-7 if out_dtype in (torch.float32, torch.float64) else 8e-3,
        atol=0,
    )


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32])
@pytest.mark.parametrize("scale_dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("float_dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_quantize_per_channel(call_op: Any, axis: int, dtype, scale_dtype, float_dtype) -> None:
    x = ref.random_values((6, 7, 9), float_dtype, seed=4, spread=0.5)
    scales, zps = ref.channel_params(x.shape[axis], dtype, seed=5, scale_dtype=scale_dtype)
    low, high = ref.bounds(dtype)
    out = call_op(
        Q + "quantize_per_channel.out",
        x,
        scales,
        zps.int(),
        axis,
        low,
        high,
        dtype,
        out=torch.empty(0, dtype=dtype),
    )
    et_scales, et_zps = ref.as_executorch(scales, zps)
    expected = ref.OPS.quantize_per_channel.out(
        ref.executorch_input(x),
        et_scales,
        et_zps,
        axis,
        low,
        high,
        dtype,
        out=torch.empty(x.shape, dtype=dtype),
    )
    torch.testing.assert_close(out, expected, rtol=0, atol=0)
    reference = ref.OPS.quantize_per_channel.default(
        x.float(), scales, zps, axis % 3, low, high, dtype
    )
    torch.testing.assert_close(out.long(), reference.long(), rtol=0, atol=1)


@pytest.mark.parametrize("axis", [0, 2, -2])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16])
@pytest.mark.parametrize("with_zero_points", [True, False])
@pytest.mark.parametrize("out_dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_dequantize_per_channel(
    call_op: Any, axis: int, dtype, with_zero_points: bool, out_dtype
) -> None:
    q = ref.random_quantized((5, 4, 11), dtype, seed=6)
    scales, zps = ref.channel_params(q.shape[axis], dtype, seed=7, scale_dtype=torch.float32)
    zps_arg = zps if with_zero_points else None
    low, high = ref.bounds(dtype)
    out = call_op(
        Q + "dequantize_per_channel.out",
        q,
        scales,
        zps_arg,
        axis,
        low,
        high,
        dtype,
        out_dtype=out_dtype,
        out=torch.empty(0, dtype=out_dtype),
    )
    et_dtype = torch.float32 if out_dtype == torch.bfloat16 else out_dtype
    expected = ref.OPS.dequantize_per_channel.out(
        q,
        scales,
        zps_arg,
        axis,
        low,
        high,
        dtype,
        out_dtype=et_dtype,
        out=torch.empty(q.shape, dtype=et_dtype),
    ).to(out_dtype)
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


@pytest.mark.parametrize("shape", [(5, 7, 16), (1, 64), (3,), (0, 8)])
@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16])
def test_quantize_and_dequantize_per_token(call_op: Any, shape: tuple[int, ...], dtype) -> None:
    x = ref.random_values(shape, torch.float32, seed=8)
    tokens = x.numel() // shape[-1] if shape[-1] else 0
    scales, zps = ref.channel_params(tokens, dtype, seed=9)
    token_shape = shape[:-1] + (1,)
    scales, zps = scales.reshape(token_shape), zps.reshape(token_shape)
    low, high = ref.bounds(dtype)
    q = call_op(
        Q + "quantize_per_token.out",
        x,
        scales,
        zps,
        low,
        high,
        dtype,
        out=torch.empty(0, dtype=dtype),
    )
    expected_q = ref.OPS.quantize_per_token.out(
        x, scales, zps, low, high, dtype, out=torch.empty(shape, dtype=dtype)
    )
    torch.testing.assert_close(q, expected_q, rtol=0, atol=0)
    reference_q = ref.OPS.quantize_per_token.default(x, scales, zps, low, high, dtype)
    torch.testing.assert_close(q.long(), reference_q.long(), rtol=0, atol=1)
    for out_dtype in (torch.float32, torch.float16):
        x2 = call_op(
            Q + "dequantize_per_token.out",
            q,
            scales,
            zps,
            low,
            high,
            dtype,
            out_dtype,
            out=torch.empty(0, dtype=out_dtype),
        )
        expected_x = ref.OPS.dequantize_per_token.out(
            q, scales, zps, low, high, dtype, out_dtype, out=torch.empty(shape, dtype=out_dtype)
        )
        torch.testing.assert_close(x2, expected_x, rtol=0, atol=0)


def test_round_trip_error_is_half_a_step(call_op: Any) -> None:
    x = ref.random_values((64, 257), torch.float32, seed=10, spread=1.0)
    scale, zp = 0.05, 0
    q = quantize_per_tensor(call_op, x, scale, zp, torch.int8)
    back = dequantize_per_tensor(call_op, q, scale, zp, torch.float32, given=False)
    inside = x.abs() < 127 * scale
    assert float((back - x)[inside].abs().max()) <= scale / 2 * (1 + 1e-6)


def test_bad_input(call_op: Any) -> None:
    x = torch.randn(4, 6)
    q = torch.zeros(4, 6, dtype=torch.int8)
    i8 = torch.empty(0, dtype=torch.int8)
    f32 = torch.empty(0)
    qpt = Q + "quantize_per_tensor.out"
    with raises(call_op, "not a quantized dtype"):
        call_op(qpt, x, 0.1, 0, -128, 127, torch.int64, out=torch.empty(0, dtype=torch.int64))
    with raises(call_op, "quant_min 5 is greater than quant_max 4"):
        call_op(qpt, x, 0.1, 4, 5, 4, torch.int8, out=i8)
    with raises(call_op, "leaves the range of Char"):
        call_op(qpt, x, 0.1, 0, -129, 127, torch.int8, out=i8)
    with raises(call_op, "a quantization scale is a positive finite number"):
        call_op(qpt, x, 0.0, 0, -128, 127, torch.int8, out=i8)
    with raises(call_op, "zero_point is 300, outside"):
        call_op(qpt, x, 0.1, 300, -128, 127, torch.int8, out=i8)
    with raises(call_op, "input has dtype Long"):
        call_op(qpt, x.long(), 0.1, 0, -128, 127, torch.int8, out=i8)
    with raises(call_op, "out has dtype Byte but dtype is Char"):
        call_op(qpt, x, 0.1, 0, -128, 127, torch.int8, out=torch.empty(0, dtype=torch.uint8))
    with raises(call_op, "input is not contiguous"):
        channels_last = torch.randn(1, 3, 4, 5).to(memory_format=torch.channels_last)
        call_op(qpt, channels_last, 0.1, 0, -128, 127, torch.int8, out=i8)
    with raises(call_op, "scale has 2 elements"):
        call_op(
            Q + "quantize_per_tensor.Tensor_out",
            x,
            torch.tensor([0.1, 0.2]),
            torch.tensor([0]),
            -128,
            127,
            torch.int8,
            out=i8,
        )
    with raises(call_op, "zero_point has dtype Float"):
        call_op(
            Q + "quantize_per_tensor.Tensor_out",
            x,
            torch.tensor([0.1]),
            torch.tensor([0.0]),
            -128,
            127,
            torch.int8,
            out=i8,
        )
    with raises(call_op, "input has dtype Byte but the dtype argument says Char"):
        call_op(
            Q + "dequantize_per_tensor.out",
            q.to(torch.uint8),
            0.1,
            0,
            -128,
            127,
            torch.int8,
            out=f32,
        )
    with raises(call_op, "out has dtype Half but out_dtype is Float"):
        call_op(
            Q + "dequantize_per_tensor.out",
            q,
            0.1,
            0,
            -128,
            127,
            torch.int8,
            out_dtype=torch.float32,
            out=torch.empty(0, dtype=torch.float16),
        )
    with raises(call_op, "out has dtype Int; pass a Float"):
        call_op(
            Q + "dequantize_per_tensor.out",
            q,
            0.1,
            0,
            -128,
            127,
            torch.int8,
            out=torch.empty(0, dtype=torch.int32),
        )
    scales, zps = torch.full((6,), 0.1), torch.zeros(6, dtype=torch.long)
    with raises(call_op, "axis 2 is out of range for input of shape \\[4, 6\\]"):
        call_op(Q + "quantize_per_channel.out", x, scales, zps, 2, -128, 127, torch.int8, out=i8)
    with raises(call_op, "scale has 6 elements but input's size along axis is 4"):
        call_op(Q + "quantize_per_channel.out", x, scales, zps, 0, -128, 127, torch.int8, out=i8)
    with raises(call_op, "a scale is -0.1"):
        call_op(
            Q + "dequantize_per_channel.out", q, -scales, None, 1, -128, 127, torch.int8, out=f32
        )
    with raises(call_op, "a zero point is 200"):
        call_op(
            Q + "dequantize_per_channel.out",
            q,
            scales,
            zps + 200,
            1,
            -128,
            127,
            torch.int8,
            out=f32,
        )
    with raises(call_op, "scale has 6 elements but the number of tokens is 4"):
        call_op(Q + "quantize_per_token.out", x, scales, zps, -128, 127, torch.int8, out=i8)
    with raises(call_op, "input is 0-dimensional"):
        call_op(
            Q + "dequantize_per_token.out",
            q[0, 0],
            scales[:1],
            zps[:1],
            -128,
            127,
            torch.int8,
            torch.float32,
            out=f32,
        )
