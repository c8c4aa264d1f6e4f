"""Type promotion of the binary ops across every dtype pair and operand kind, against torch.

Results go into a wide out tensor (float64) where the op allows it, so a kernel computing in the
wrong dtype shows up as a rounding or wrapping difference instead of hiding in the cast.
"""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
import torch
from op_compare import check_op
from strategies import ALL_DTYPES, make_tensor

aten = torch.ops.aten

# (self shape, other shape): dimensioned and zero-dim operands in every combination.
SHAPE_PAIRS = [((5,), ()), ((), (5,)), ((5,), (5,)), ((), ()), ((2, 5), (1,))]
TENSOR_OPS = {
    "aten::add.out": (aten.add.out, {"alpha": 1}),
    "aten::sub.out": (aten.sub.out, {"alpha": 1}),
    "aten::mul.out": (aten.mul.out, {}),
    "aten::div.out": (aten.div.out, {}),
    "aten::div.out_mode": (aten.div.out_mode, {"rounding_mode": "floor"}),
    "aten::maximum.out": (aten.maximum.out, {}),
    "aten::minimum.out": (aten.minimum.out, {}),
    "aten::remainder.Tensor_out": (aten.remainder.Tensor_out, {}),
    "aten::fmod.Tensor_out": (aten.fmod.Tensor_out, {}),
    "aten::atan2.out": (aten.atan2.out, {}),
    "aten::pow.Tensor_Tensor_out": (aten.pow.Tensor_Tensor_out, {}),
    "aten::lt.Tensor_out": (aten.lt.Tensor_out, {}),
    "aten::eq.Tensor_out": (aten.eq.Tensor_out, {}),
    "aten::logical_xor.out": (aten.logical_xor.out, {}),
    "aten::bitwise_xor.Tensor_out": (aten.bitwise_xor.Tensor_out, {}),
}
# Ops whose integer divisors stay nonzero here (a zero is an error, tested per op).
DIVIDING = {
    "aten::div.out_mode",
    "aten::remainder.Tensor_out",
    "aten::fmod.Tensor_out",
    "aten::remainder.Scalar_out",
    "aten::fmod.Scalar_out",
}
SCALARS = [True, False, 3, -300, 2**40 + 3, 0.1, -2.5, 65520.0, 1e39, float("nan"), float("inf")]


def operands(dtype: torch.dtype, shape: tuple, seed: int) -> torch.Tensor:
    # Many mantissa bits and full-range integers, so rounding and wrapping are visible.
    return make_tensor(dtype, shape, seed, magnitude=1000.0, int_range=(-(2**62), 2**62))


@pytest.mark.parametrize("name", sorted(TENSOR_OPS))
def test_tensor_tensor_promotion(call_op: Any, name: str) -> None:
    torch_op, kwargs = TENSOR_OPS[name]
    for (dtype_a, dtype_b), (shape_a, shape_b) in product(
        product(ALL_DTYPES, ALL_DTYPES), SHAPE_PAIRS
    ):
        a = operands(dtype_a, shape_a, 1)
        b = operands(dtype_b, shape_b, 2)
        if name == "aten::div.out" and not b.dtype.is_floating_point:
            b = b.clamp(-3, 3) if b.dtype != torch.bool else b
        if name in DIVIDING and not b.dtype.is_floating_point and b.dtype != torch.bool:
            b = b.clamp(1, 3)
        if name == "aten::pow.Tensor_Tensor_out" and not b.dtype.is_floating_point:
            b = b.clamp(-3, 5) if b.dtype != torch.bool else b
        out = torch.empty(0, dtype=torch.float64)
        # atan2 computes integer operands in float32, where Kiln's is within 1.7 ulp, not exact.
        ints_to_float = name == "aten::atan2.out"
        check_op(call_op, name, torch_op, (a, b), kwargs, out=out, ints_to_float=ints_to_float)


@pytest.mark.parametrize(
    ("name", "torch_op"),
    [
        ("aten::add.Scalar_out", aten.add.Scalar_out),
        ("aten::sub.Scalar_out", aten.sub.Scalar_out),
        ("aten::mul.Scalar_out", aten.mul.Scalar_out),
        ("aten::div.Scalar_out", aten.div.Scalar_out),
        ("aten::div.Scalar_mode_out", aten.div.Scalar_mode_out),
        ("aten::remainder.Scalar_out", aten.remainder.Scalar_out),
        ("aten::fmod.Scalar_out", aten.fmod.Scalar_out),
        ("aten::pow.Tensor_Scalar_out", aten.pow.Tensor_Scalar_out),
        ("aten::ge.Scalar_out", aten.ge.Scalar_out),
        ("aten::ne.Scalar_out", aten.ne.Scalar_out),
        ("aten::bitwise_or.Scalar_out", aten.bitwise_or.Scalar_out),
    ],
)
def test_tensor_scalar_promotion(call_op: Any, name: str, torch_op: Any) -> None:
    for dtype, shape, other in product(ALL_DTYPES, [(5,), ()], SCALARS):
        a = operands(dtype, shape, 3)
        if name in DIVIDING and not a.dtype.is_floating_point:
            a = a.clamp(-100, 100) if a.dtype != torch.bool else a
        kwargs = {"rounding_mode": "trunc"} if name == "aten::div.Scalar_mode_out" else {}
        result = torch.result_type(a, other)
        if name == "aten::div.Scalar_out" and not result.is_floating_point:
            result = torch.float32
        out = torch.empty(0, dtype=result)
        check_op(call_op, name, torch_op, (a, other), kwargs, out=out)
