"""ExecuTorch's quantized add (quantized_decomposed::add.out): a and b dequantized with their
parameters, added in float, the sum quantized with out's. Against ExecuTorch 1.5.1's own kernel,
bit for bit, over every pair of quantized values (which meets every rounding tie those parameters
make), and against its Python definition (dequantize_per_tensor, add, quantize_per_tensor on
uint8, from exir/passes/_quant_patterns_and_replacements.py) within one quantum: torch forms
1 / out_scale in double where ExecuTorch's kernel forms it in float, so a value at a tie may
land one step apart. Edge cases and refusals."""

from __future__ import annotations

from typing import Any

import pytest
import quantized_reference as ref
import torch
from executorch.exir.passes._quant_patterns_and_replacements import (
    _get_binary_ops_patterns_and_replacements,
)
from op_compare import raises

import kiln

OP = "quantized_decomposed::add.out"

# Binds ExecuTorch's Python definition of quantized add (the pattern it replaces) to
# torch.ops.quantized_decomposed.add.default, which has no computation before.
_get_binary_ops_patterns_and_replacements()

# ExecuTorch's dtypes: its integer ones. Their tests use ranges inside [0, 127], which every one
# holds (int8 stores would wrap past 127, which Kiln refuses).
DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]

# (a_scale, a_zero_point, b_scale, b_zero_point, out_scale, out_zero_point)
Params = tuple[float, int, float, int, float, int]

# Parameters for ranges [0, 127]: unrelated scales, equal ones (out = a + b exactly at zero
# points 0), a coarse out scale, a fine one that saturates.
PARAMETERS: list[Params] = [
    (0.0173, 7, 0.031, 60, 0.045, 30),
    (0.25, 0, 0.25, 0, 0.25, 0),
    (0.1, 100, 0.05, 3, 0.7, 64),
    (0.02, 64, 0.02, 64, 0.001, 120),
]


def args(
    a: torch.Tensor, b: torch.Tensor, params: Params, low: int = 0, high: int = 127
) -> tuple[Any, ...]:
    a_scale, a_zp, b_scale, b_zp, out_scale, out_zp = params
    return (a, a_scale, a_zp, low, high, b, b_scale, b_zp, low, high, out_scale, out_zp, low, high)


def every_pair(dtype: torch.dtype, high: int) -> tuple[torch.Tensor, torch.Tensor]:
    """a and b holding every pair of values in [0, high] once."""
    values = torch.arange(high + 1)
    a, b = torch.meshgrid(values, values, indexing="ij")
    return a.reshape(-1).to(dtype), b.reshape(-1).to(dtype)


def executorch_add(arguments: tuple[Any, ...]) -> torch.Tensor:
    a = arguments[0]
    out: torch.Tensor = ref.OPS.add.out(*arguments, out=torch.empty(a.shape, dtype=a.dtype))
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("params", PARAMETERS)
def test_every_pair_matches_executorch(call_op: Any, dtype: torch.dtype, params: Params) -> None:
    a, b = every_pair(dtype, 127)
    arguments = args(a, b, params)
    out = call_op(OP, *arguments, out=torch.empty(0, dtype=dtype))
    torch.testing.assert_close(out, executorch_add(arguments), rtol=0, atol=0)


@pytest.mark.parametrize("params", PARAMETERS)
def test_full_uint8_range(call_op: Any, params: Params) -> None:
    a, b = every_pair(torch.uint8, 255)
    arguments = args(a, b, params, 0, 255)
    out = call_op(OP, *arguments, out=torch.empty(0, dtype=torch.uint8))
    torch.testing.assert_close(out, executorch_add(arguments), rtol=0, atol=0)
    python = ref.OPS.add.default(*arguments)
    torch.testing.assert_close(out.long(), python.long(), rtol=0, atol=1)


def test_saturates_at_the_out_range(call_op: Any) -> None:
    # Sums from -12.7 to 25.5 into an out range [10, 200] of scale 0.1 around zero point 100:
    # values past either end clamp to it.
    a, b = every_pair(torch.uint8, 255)
    arguments = (a, 0.1, 127, 0, 255, b, 0.05, 0, 0, 255, 0.1, 100, 10, 200)
    out = call_op(OP, *arguments, out=torch.empty(0, dtype=torch.uint8))
    torch.testing.assert_close(out, executorch_add(arguments), rtol=0, atol=0)
    sums = (a.double() - 127) * 0.1 + b.double() * 0.05
    assert bool((out[sums < -9.5] == 10).all()) and bool((out[sums > 10.5] == 200).all())
    assert int(out.min()) == 10 and int(out.max()) == 200


def test_rounds_ties_to_even(call_op: Any) -> None:
    # Scales 0.5 and 1: sums 0.5, 1.5, 2.5, 3.5 are exact ties, rounded to 0, 2, 2, 4.
    a = torch.tensor([1, 3, 5, 7], dtype=torch.uint8)
    b = torch.zeros(4, dtype=torch.uint8)
    arguments = (a, 0.5, 0, 0, 255, b, 0.5, 0, 0, 255, 1.0, 0, 0, 255)
    out = call_op(OP, *arguments, out=torch.empty(0, dtype=torch.uint8))
    torch.testing.assert_close(out, torch.tensor([0, 2, 2, 4], dtype=torch.uint8))
    torch.testing.assert_close(out, executorch_add(arguments), rtol=0, atol=0)


def test_scale_past_float_gives_quant_min(call_op: Any) -> None:
    # ExecuTorch takes the scales as float: 1e300 becomes infinity, and a value at the zero point
    # dequantizes to 0 * inf = NaN, which quantizes to quant_min (ExecuTorch's kernel casts the
    # NaN to an integer, which is undefined; Kiln defines it).
    a = torch.tensor([5, 6], dtype=torch.uint8)
    b = torch.tensor([0, 0], dtype=torch.uint8)
    arguments = (a, 1e300, 5, 0, 255, b, 0.1, 0, 0, 255, 0.1, 50, 3, 250)
    out = call_op(OP, *arguments, out=torch.empty(0, dtype=torch.uint8))
    torch.testing.assert_close(out, torch.tensor([3, 250], dtype=torch.uint8))


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 5), (2, 3, 4, 5), (1 << 20,)])
def test_shapes(call_op: Any, shape: tuple[int, ...]) -> None:
    generator = torch.Generator().manual_seed(len(shape))
    a = torch.randint(0, 256, shape, generator=generator, dtype=torch.uint8)
    b = torch.randint(0, 256, shape, generator=generator, dtype=torch.uint8)
    arguments = args(a, b, PARAMETERS[0], 0, 255)
    out = call_op(OP, *arguments, out=torch.empty(7, dtype=torch.uint8))
    assert out.shape == a.shape
    torch.testing.assert_close(out, executorch_add(arguments), rtol=0, atol=0)


def test_threads_give_the_same_bits(call_op: Any) -> None:
    a, b = every_pair(torch.int16, 255)
    arguments = args(a.repeat(4), b.repeat(4), PARAMETERS[0], 0, 255)
    results = []
    try:
        for threads in (1, 2):
            kiln.set_num_threads(threads)
            results.append(call_op(OP, *arguments, out=torch.empty(0, dtype=torch.int16)))
    finally:
        kiln.set_num_threads(1)
    assert torch.equal(results[0], results[1])
    torch.testing.assert_close(results[0], executorch_add(arguments), rtol=0, atol=0)


def test_bad_input(call_op: Any) -> None:
    a, b = every_pair(torch.uint8, 15)
    out = torch.empty(0, dtype=torch.uint8)
    good = args(a, b, PARAMETERS[0])

    def call(*changes: tuple[int, Any], out: torch.Tensor = out) -> None:
        arguments = list(good)
        for index, value in changes:
            arguments[index] = value
        call_op(OP, *arguments, out=out)

    with raises(call_op, "a has dtype Float; pass a quantized tensor of an integer dtype"):
        call((0, a.float()), (5, b.float()), out=out.float())
    with raises(call_op, "b has dtype Char but a has Byte"):
        call((5, b.to(torch.int8)))
    with raises(call_op, r"b has shape \[16, 16\] but a has shape \[256\]"):
        call((5, b.reshape(16, 16)))  # no broadcasting, as ExecuTorch
    with raises(call_op, "out has dtype Char but a has Byte"):
        call(out=out.to(torch.int8))
    with raises(call_op, r"\[a_quant_min, a_quant_max\] = \[-1, 127\] is not a range inside"):
        call((3, -1))
    with raises(call_op, r"\[b_quant_min, b_quant_max\] = \[0, 256\]"):
        call((9, 256))
    with raises(call_op, r"\[out_quant_min, out_quant_max\] = \[100, 50\]"):
        call((12, 100), (11, 70), (13, 50))
    int8_range = r"= \[0, 200\] is not a range inside \[0, 127\].* of Char \(int8\) tensors"
    with raises(call_op, int8_range):
        call((0, a.to(torch.int8)), (5, b.to(torch.int8)), (13, 200), out=out.to(torch.int8))
    with raises(call_op, "a_scale is 0; a quantization scale is a positive finite number"):
        call((1, 0.0))
    with raises(call_op, "out_scale is -0.5"):
        call((10, -0.5))
    with raises(call_op, "b_scale is inf"):
        call((6, float("inf")))
    with raises(call_op, r"b_zero_point is 128, outside \[quant_min, quant_max\] = \[0, 127\]"):
        call((7, 128))
    channels_last = a.reshape(1, 4, 8, 8).contiguous(memory_format=torch.channels_last)
    with raises(call_op, "a is not contiguous"):
        call((0, channels_last), (5, b.reshape(1, 4, 8, 8)))
