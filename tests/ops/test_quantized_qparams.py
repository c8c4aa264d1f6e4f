"""ExecuTorch's choose_qparams operators (quantized_decomposed::choose_qparams.Tensor_out and
choose_qparams_per_token_asymmetric.out) against ExecuTorch 1.5.1's own kernels, exactly, and
against torch's reference definitions where the two rules agree: ExecuTorch's (FBGEMM's) scale is
torch's (max(max, 0) - min(min, 0)) / (quant_max - quant_min) unless that is below 6.1e-5, and its
zero point, chosen from the end of the range with the smaller error, is within one of torch's."""

from __future__ import annotations

from typing import Any

import pytest
import quantized_reference as ref
import torch
from op_compare import raises

CHOOSE = "quantized_decomposed::choose_qparams.Tensor_out"
PER_TOKEN = "quantized_decomposed::choose_qparams_per_token_asymmetric.out"

# (description, values): ranges on both sides of zero, on one side only, constant zero, and one
# narrower than the smallest scale ExecuTorch keeps.
RANGES = {
    "mixed": lambda g: torch.randn(1000, generator=g) * 4,
    "positive": lambda g: torch.rand(300, generator=g) * 7 + 0.5,
    "negative": lambda g: -torch.rand(300, generator=g) * 0.3 - 1.0,
    "zeros": lambda g: torch.zeros(17),
    "narrow": lambda g: torch.randn(64, generator=g) * 1e-4,
    "one value": lambda g: torch.tensor([2.5]),
}


def choose(call_op: Any, x: torch.Tensor, low: int, high: int, dtype: torch.dtype) -> tuple:
    outs = {
        "scale_out": torch.empty(0, dtype=torch.float64),
        "zero_point_out": torch.empty(0, dtype=torch.int64),
    }
    return call_op(CHOOSE, x, low, high, 1e-7, dtype, **outs)


def executorch_choose(x: torch.Tensor, low: int, high: int, dtype: torch.dtype) -> tuple:
    outs = {
        "scale_out": torch.empty(1, dtype=torch.float64),
        "zero_point_out": torch.empty(1, dtype=torch.int64),
    }
    return ref.OPS.choose_qparams.Tensor_out(x.float(), low, high, 1e-7, dtype, **outs)


@pytest.mark.parametrize("kind", list(RANGES))
@pytest.mark.parametrize("float_dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize(
    ("dtype", "low", "high"),
    [
        (torch.int8, -128, 127),
        (torch.uint8, 0, 255),
        (torch.int8, -127, 127),
        (torch.int16, -32768, 32767),
    ],
)
def test_choose_qparams(call_op: Any, kind: str, float_dtype, dtype, low: int, high: int) -> None:
    x = RANGES[kind](torch.Generator().manual_seed(11)).to(float_dtype)
    scale, zero_point = choose(call_op, x, low, high, dtype)
    # ExecuTorch takes Float input; a 16-bit float converts to it exactly.
    expected_scale, expected_zero_point = executorch_choose(x, low, high, dtype)
    torch.testing.assert_close(scale, expected_scale, rtol=0, atol=0)
    torch.testing.assert_close(zero_point, expected_zero_point, rtol=0, atol=0)
    torch_scale, torch_zero_point = ref.OPS.choose_qparams.tensor(
        x.float(),
        low,
        high,
        1e-7,
        dtype,  # torch's rule computes in the input's dtype
    )
    if float(torch_scale) >= 6.1e-5:
        torch.testing.assert_close(scale, torch_scale, rtol=1e-6, atol=0)
        torch.testing.assert_close(zero_point, torch_zero_point, rtol=0, atol=1)


@pytest.mark.parametrize("shape", [(7, 33), (2, 3, 64), (5,), (0, 16), (1, 4096)])
@pytest.mark.parametrize("float_dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_choose_qparams_per_token(call_op: Any, shape: tuple[int, ...], float_dtype) -> None:
    x = ref.random_values(shape, torch.float32, seed=12)
    if x.numel():
        x.view(-1, shape[-1])[0] = x.view(-1, shape[-1])[0].abs()  # a token with no negatives
    x = x.to(float_dtype)
    outs = {
        "scale_out": torch.empty(0, dtype=torch.float64),
        "zero_point_out": torch.empty(0, dtype=torch.int64),
    }
    scale, zero_point = call_op(PER_TOKEN, x, torch.int8, **outs)
    token_shape = shape[:-1] + (1,)
    et_outs = {
        "scale_out": torch.empty(token_shape, dtype=torch.float64),
        "zero_point_out": torch.empty(token_shape, dtype=torch.int64),
    }
    expected_scale, expected_zero_point = ref.OPS.choose_qparams_per_token_asymmetric.out(
        x.float(), torch.int8, **et_outs
    )
    torch.testing.assert_close(scale, expected_scale, rtol=0, atol=0)
    torch.testing.assert_close(zero_point, expected_zero_point, rtol=0, atol=0)


def test_large_input_on_threads(call_op: Any) -> None:
    x = ref.random_values((1 << 20,), torch.float32, seed=13)
    x[123457] = 40.0
    scale, zero_point = choose(call_op, x, -128, 127, torch.int8)
    expected_scale, expected_zero_point = executorch_choose(x, -128, 127, torch.int8)
    torch.testing.assert_close(
        (scale, zero_point), (expected_scale, expected_zero_point), rtol=0, atol=0
    )


def test_bad_input(call_op: Any) -> None:
    x = torch.randn(3, 8)
    outs = {
        "scale_out": torch.empty(0, dtype=torch.float64),
        "zero_point_out": torch.empty(0, dtype=torch.int64),
    }
    with raises(call_op, "input holds a NaN or infinite value"):
        call_op(CHOOSE, torch.tensor([1.0, float("nan")]), -128, 127, 1e-7, torch.int8, **outs)
    with raises(call_op, "input holds a NaN or infinite value"):
        call_op(PER_TOKEN, torch.tensor([[1.0, 2.0], [float("inf"), 0.0]]), torch.int8, **outs)
    with raises(call_op, "is empty; quantization parameters need at least one value"):
        call_op(CHOOSE, torch.empty(0, 4), -128, 127, 1e-7, torch.int8, **outs)
    with raises(call_op, "quant_min and quant_max are both 3"):
        call_op(CHOOSE, x, 3, 3, 1e-7, torch.int8, **outs)
    with raises(call_op, "input has dtype Double; pass a Float, Half or BFloat16"):
        call_op(CHOOSE, x.double(), -128, 127, 1e-7, torch.int8, **outs)
    with raises(call_op, "scale_out has dtype Float; pass a Double tensor"):
        call_op(
            CHOOSE,
            x,
            -128,
            127,
            1e-7,
            torch.int8,
            scale_out=torch.empty(0),
            zero_point_out=outs["zero_point_out"],
        )
    with raises(call_op, "zero_point_out has dtype Int; pass a Long tensor"):
        call_op(
            PER_TOKEN,
            x,
            torch.int8,
            scale_out=outs["scale_out"],
            zero_point_out=torch.empty(0, dtype=torch.int32),
        )
    with raises(call_op, "dtype is Byte, but choose_qparams_per_token_asymmetric chooses int8"):
        call_op(PER_TOKEN, x, torch.uint8, **outs)
    with raises(call_op, "has tokens of no values"):
        call_op(PER_TOKEN, torch.empty(3, 0), torch.int8, **outs)
