"""Same-dtype elementwise loops at vector lengths, against torch: Bool operands, which compute as
bytes; the integer add/sub/rsub functor, which multiplies by alpha without a branch; Bool
bitwise_not on bytes; and float division rounding toward zero, which has its own loop.

Shapes are long enough for the vector bodies and leave tails (1037 elements), with a broadcast
row and a scalar operand, so each loop of a row (both strided, either operand fixed) runs."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from op_compare import check_op
from strategies import make_tensor

aten = torch.ops.aten

BOOL_OPS = [
    "add.out",
    "mul.out",
    "maximum.out",
    "minimum.out",
    "bitwise_and.Tensor_out",
    "bitwise_or.Tensor_out",
    "bitwise_xor.Tensor_out",
    "logical_and.out",
    "logical_or.out",
    "logical_xor.out",
    "eq.Tensor_out",
    "ne.Tensor_out",
    "lt.Tensor_out",
    "le.Tensor_out",
    "gt.Tensor_out",
    "ge.Tensor_out",
]
SHAPE_PAIRS = [((1037,), (1037,)), ((3, 1037), (1037,)), ((1037,), ()), ((), (5, 1037))]
INTEGER_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def torch_op(name: str) -> Any:
    op, overload = name.split(".")
    return getattr(getattr(aten, op), overload)


@pytest.mark.parametrize("name", BOOL_OPS)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
def test_bool_operands(call_op: Any, name: str, shapes: tuple) -> None:
    a = make_tensor(torch.bool, shapes[0], 1)
    b = make_tensor(torch.bool, shapes[1], 2)
    for out_dtype in (torch.bool, torch.int32, torch.float32):
        out = torch.empty(0, dtype=out_dtype)
        check_op(call_op, f"aten::{name}", torch_op(name), (a, b), out=out)


@pytest.mark.parametrize("alpha", [True, False, 1, 2, -1, 256, 1 << 40])
def test_bool_add_alpha(call_op: Any, alpha: Any) -> None:
    """An integer alpha counts as true or false for Bool, whatever its bits (256 as a byte is 0)."""
    a = make_tensor(torch.bool, (1037,), 3)
    b = make_tensor(torch.bool, (1037,), 4)
    out = torch.empty(0, dtype=torch.bool)
    check_op(call_op, "aten::add.out", aten.add.out, (a, b), {"alpha": alpha}, out=out)


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
@pytest.mark.parametrize("name", ["add.out", "sub.out", "rsub.Scalar_out"])
@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
def test_integer_alpha(call_op: Any, dtype: torch.dtype, name: str, shapes: tuple) -> None:
    a = make_tensor(dtype, shapes[0], 5)
    # rsub (other - alpha * self) has only a Scalar other, as in ATen's out variants.
    b = 5 if name.startswith("rsub") else make_tensor(dtype, shapes[1], 6)
    # Values wrap as in ATen; alphas from 1 (the usual case) to ones that overflow the product.
    for alpha in (1, -1, 3, -7, 100):
        out = torch.empty(0, dtype=dtype)
        check_op(call_op, f"aten::{name}", torch_op(name), (a, b), {"alpha": alpha}, out=out)


@pytest.mark.parametrize("dtype", [torch.bool, *INTEGER_DTYPES])
def test_bitwise_not_rows(call_op: Any, dtype: torch.dtype) -> None:
    """Bool is a logical not on the bytes; the integers complement every bit."""
    a = make_tensor(dtype, (3, 1037), 7)
    check_op(
        call_op,
        "aten::bitwise_not.out",
        aten.bitwise_not.out,
        (a,),
        out=torch.empty(0, dtype=dtype),
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shapes", SHAPE_PAIRS)
def test_truncating_division_rows(call_op: Any, dtype: torch.dtype, shapes: tuple) -> None:
    """Float division with rounding_mode='trunc' has its own loop; specials included."""
    a = make_tensor(dtype, shapes[0], 8, special=True)
    b = make_tensor(dtype, shapes[1], 9, special=True)
    out = torch.empty(0, dtype=dtype)
    check_op(
        call_op,
        "aten::div.out_mode",
        aten.div.out_mode,
        (a, b),
        {"rounding_mode": "trunc"},
        out=out,
    )
