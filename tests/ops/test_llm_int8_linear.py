"""kiln::weight_int8_linear.out (weight-only int8, per-output-channel scales) against the same
linear layer computed in float64 with plain PyTorch (llm_reference): dtypes, Float or activation
dtype scales, with and without bias, odd sizes, and bad input."""

from __future__ import annotations

from typing import Any

import llm_reference as ref
import pytest
import torch
from ascend_checks import SOCS, check_ascend, check_declines, float_dtypes, on_soc
from llm_checks import LLM_DTYPES, assert_same
from op_compare import raises

OP = "kiln::weight_int8_linear.out"

# (rtol, atol) per dtype: one rounding of the result, plus float accumulation over in_features.
TOLERANCES = {
    torch.float32: (2e-5, 2e-4),
    torch.float16: (2e-3, 1e-4),
    torch.bfloat16: (1.6e-2, 1e-3),
}


def inputs(
    rows: tuple[int, ...], k: int, n: int, dtype: torch.dtype, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(*rows, k, generator=generator).to(dtype)
    weight = torch.randint(-128, 128, (n, k), generator=generator, dtype=torch.int8)
    scales = torch.rand(n, generator=generator) * 0.02 + 0.001
    bias = torch.randn(n, generator=generator).to(dtype)
    return x, weight, scales, bias


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize(
    ("rows", "k", "n"), [((1,), 4096, 300), ((5, 7), 80, 513), ((33,), 257, 64), ((0,), 16, 8)]
)
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("scale_dtype", ["float", "input"])
def test_matches_reference(
    call_op: Any, dtype: torch.dtype, rows: tuple, k: int, n: int, with_bias: bool, scale_dtype: str
) -> None:
    x, weight, scales, bias = inputs(rows, k, n, dtype)
    if scale_dtype == "input":
        scales = scales.to(dtype)
    b = bias if with_bias else None
    out = call_op(OP, x, weight, scales, b, out=torch.empty(0, dtype=dtype))
    expected = ref.weight_int8_linear(x, weight, scales, b)
    assert_same(out, expected, tolerances=TOLERANCES)


def test_bad_input(call_op: Any) -> None:
    x, weight, scales, bias = inputs((2,), 16, 8, torch.float32)
    # int8 by the name torch users know it by, next to ATen's "Char".
    with raises(call_op, "weight has dtype Float; pass a Char \\(int8\\) tensor"):
        call_op(OP, x, weight.float(), scales, bias, out=torch.empty(0))
    with raises(call_op, "input has shape"):
        call_op(OP, x[:, :15].contiguous(), weight, scales, bias, out=torch.empty(0))
    with raises(call_op, "scales has shape"):
        call_op(OP, x, weight, scales[:7].contiguous(), bias, out=torch.empty(0))
    with raises(call_op, "scales has dtype"):
        call_op(OP, x, weight, scales.half(), bias, out=torch.empty(0))
    with raises(call_op, "bias has shape"):
        call_op(OP, x, weight, scales, torch.randn(9), out=torch.empty(0))
    with raises(call_op, "bias has dtype"):
        call_op(OP, x, weight, scales, bias.half(), out=torch.empty(0))
    with raises(call_op, "pass a Float, Half or BFloat16"):
        call_op(OP, x.double(), weight, scales, None, out=torch.empty(0, dtype=torch.float64))


# The Ascend kernel itself (emulated), fallback disabled, on both SoC profiles: x rows over
# several token tiles, k over several chunks (4096 elements each), channel tails, hidden 4096.
ASCEND_SHAPES = [((1,), 4096, 300), ((5, 7), 80, 513), ((40,), 64, 48), ((3,), 5000, 40)]


def check_on_ascend(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor, bias: Any) -> None:
    """Against the float64 reference rounded once, within the Ascend tolerances plus the float
    sums' rounding: 2 L eps(float32) S, S the largest sum of |x w scale| over an output and L
    the bit length of k (the kernel sums each chunk as a tree)."""
    expected = ref.weight_int8_linear(x, weight, scales, bias)
    magnitude = (x.double().abs() @ weight.double().abs().T) * scales.double().abs()
    largest = float(magnitude.max()) if magnitude.numel() else 0.0
    atol = 2 * weight.shape[1].bit_length() * torch.finfo(torch.float32).eps * largest
    out = torch.empty(0, dtype=x.dtype)
    check_ascend(OP, expected, x, weight, scales, bias, out=out, atol=atol)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(("rows", "k", "n"), ASCEND_SHAPES)
def test_ascend_kernel(soc: str, rows: tuple, k: int, n: int) -> None:
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            x, weight, scales, bias = inputs(rows, k, n, dtype, seed=k + n)
            check_on_ascend(x, weight, scales, bias)
            check_on_ascend(x, weight, scales.to(dtype), None)


@pytest.mark.parametrize("soc", SOCS)
def test_ascend_decode_shape(soc: str) -> None:
    # Issue 15's shape: 16 tokens through a 4096 x 4096 projection.
    with on_soc(soc):
        x, weight, scales, bias = inputs((16,), 4096, 4096, torch.float16, seed=15)
        check_on_ascend(x, weight, scales, bias)


def test_ascend_declines() -> None:
    x, weight, scales, bias = inputs((2,), 16, 8, torch.float32)
    out = torch.empty(0)
    with on_soc("Ascend310P"):
        x[0, 0] = float("inf")
        check_declines(OP, x, weight, scales, bias, out=out, reason="input holding inf")
    check_declines(OP, x[:, :0], weight[:, :0], scales, bias, out=out, reason="in_features = 0")
