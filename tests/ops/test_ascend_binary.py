"""The Ascend binary kernels (add, sub, mul, div; Tensor and Scalar overloads) against torch, on
both SoC profiles: same shapes, a single value, row and column broadcasts."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from ascend_checks import SIZES, SOCS, check_ascend, check_declines, float_dtypes, on_soc
from op_compare import eps, magnitude

import kiln

aten = torch.ops.aten
OPS = {"add": aten.add.out, "sub": aten.sub.out, "mul": aten.mul.out, "div": aten.div.out}
SCALAR_OPS = {
    "add": aten.add.Scalar_out,
    "sub": aten.sub.Scalar_out,
    "mul": aten.mul.Scalar_out,
    "div": aten.div.Scalar_out,
}
# (self shape, other shape): rows of 3 and 100 elements (packed, the y pattern built in UB), 640
# (whole repeats), 1000 (padded rows), 20000 (rows longer than a UB tile: y streams); columns
# short and long (chunked); a single value as a 0-dim and as a [1, 1] tensor.
BROADCASTS = [
    ((5, 3), (3,)),
    ((40, 100), (100,)),
    ((2, 3, 640), (640,)),
    ((8, 1000), (1, 1000)),
    ((2, 20000), (20000,)),
    ((50, 7), (50, 1)),
    ((4, 5, 100), (4, 5, 1)),
    ((2, 20000), (2, 1)),
    ((4099,), ()),
    ((3, 33), (1, 1)),
]
SPECIALS = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -2.5, 1e30, 65504.0, 3e-5]


def operand(shape: tuple, dtype: torch.dtype, seed: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    if dtype == torch.int32:
        return torch.randint(-50_000, 50_000, shape, generator=gen, dtype=dtype)
    values = torch.randn(shape, generator=gen) * 3
    return values.to(dtype)


def alpha_atol(dtype: torch.dtype, a: torch.Tensor, b: Any, alpha: float) -> float:
    """Room for torch rounding alpha * other (or fusing it) where the kernel does not."""
    if not dtype.is_floating_point or alpha == 1:
        return 0.0
    return 2 * eps(dtype) * (magnitude(a) + abs(alpha) * magnitude(b))


def dtypes(soc: str, op: str) -> list[torch.dtype]:
    return float_dtypes(soc) + ([] if op == "div" else [torch.int32])


def check(op: str, a: torch.Tensor, b: torch.Tensor, alpha: float = 1) -> None:
    kwargs = {"alpha": alpha} if op in ("add", "sub") else {}
    expected = OPS[op](a, b, out=torch.empty(0, dtype=a.dtype), **kwargs)
    out = torch.empty(0, dtype=a.dtype)
    atol = alpha_atol(a.dtype, a, b, alpha)
    check_ascend(f"aten::{op}.out", expected, a, b, out=out, atol=atol, **kwargs)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_same_shape(soc: str, size: int) -> None:
    with on_soc(soc):
        for index, op in enumerate(OPS):
            for dtype in dtypes(soc, op):
                if size == SIZES[-1] and dtype != dtypes(soc, op)[index % 3]:
                    continue  # comparing a million elements is slow: one dtype per op there
                a, b = operand((size,), dtype, 1), operand((size,), dtype, 2)
                if op == "div":
                    b = torch.where(b == 0, torch.ones_like(b), b)
                for alpha in [1, 2] if op in ("add", "sub") else [1]:
                    check(op, a, b, alpha)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(("self_shape", "other_shape"), BROADCASTS)
def test_broadcasts(soc: str, self_shape: tuple, other_shape: tuple) -> None:
    with on_soc(soc):
        for op in OPS:
            for dtype in dtypes(soc, op):
                a, b = operand(self_shape, dtype, 3), operand(other_shape, dtype, 4)
                for alpha in [1, -0.5] if op in ("add", "sub") else [1]:
                    if dtype == torch.int32 and alpha != 1:
                        alpha = -3
                    check(op, a, b, alpha)
                if op in ("add", "mul"):
                    check(op, b, a)  # commutative: other may be the larger operand


def check_scalar(name: str, a: torch.Tensor, value: Any, alpha: Any = None) -> None:
    kwargs = {} if alpha is None else {"alpha": alpha}
    expected = SCALAR_OPS[name](a, value, out=torch.empty(0, dtype=a.dtype), **kwargs)
    atol = alpha_atol(a.dtype, a, value, alpha or 1)
    out = torch.empty(0, dtype=a.dtype)
    check_ascend(f"aten::{name}.Scalar_out", expected, a, value, out=out, atol=atol, **kwargs)


@pytest.mark.parametrize("soc", SOCS)
def test_scalar_overloads(soc: str) -> None:
    with on_soc(soc):
        for dtype in [*float_dtypes(soc), torch.int32]:
            a = operand((4099,), dtype, 5)
            # add and sub round other to the dtype (65520 is inf in half), mul and div keep it
            # in float.
            values = [3, -2] if dtype == torch.int32 else [3, 0.1, 65520, 1e-8]
            for value in values:
                check_scalar("mul", a, value)
                if dtype != torch.int32:
                    check_scalar("div", a, value)
                for name in ("add", "sub"):
                    for alpha in (1, 2):
                        check_scalar(name, a, value, alpha)
        # Several tiles per core: one dtype per op.
        a = operand((SIZES[-1],), torch.float32, 6)
        check_scalar("add", a, 0.25, 3)
        check_scalar("sub", a.to(float_dtypes(soc)[-1]), 1.5)
        check_scalar("mul", a.half(), 0.1)
        check_scalar("div", a, -7)


@pytest.mark.parametrize("soc", SOCS)
def test_special_values(soc: str) -> None:
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            a = torch.tensor(SPECIALS).to(dtype)
            grid_a = a.repeat_interleave(len(SPECIALS))
            grid_b = a.repeat(len(SPECIALS))
            for op in OPS:
                check(op, grid_a, grid_b)
                check(op, grid_a.reshape(len(SPECIALS), -1), a)  # row broadcast
                check(op, grid_a.reshape(len(SPECIALS), -1), a.reshape(-1, 1))  # column
            check("add", grid_a, grid_b, alpha=2)
            for value in [float("inf"), float("nan"), -0.0]:
                out = torch.empty(0, dtype=dtype)
                check_ascend("aten::mul.Scalar_out", a * value, a, value, out=out)


def test_int32_wraps() -> None:
    a = torch.tensor([2**31 - 1, -(2**31), 7, -7] * 16, dtype=torch.int32)
    b = torch.tensor([1, -1, 2**30, -(2**30)] * 16, dtype=torch.int32)
    for op in ("add", "sub", "mul"):
        check(op, a, b)
    check("add", a, b, alpha=5)
    check("sub", a, b, alpha=-3)


def test_in_place_keeps_shape_and_handles_empty() -> None:
    a = operand((4, 640), torch.float32, 6)
    b = operand((640,), torch.float32, 7)
    expected = a + 2 * b
    kiln.call_op("aten::add.out", a, b, alpha=2, out=a, backend="ascend", allow_fallback=False)
    torch.testing.assert_close(a, expected)
    for shape_a, shape_b in [((3, 0), (3, 0)), ((0, 5), (5,)), ((), ()), ((1, 3), (3,))]:
        a, b = operand(shape_a, torch.float32, 8), operand(shape_b, torch.float32, 9)
        check("mul", a, b)


def declines_invalid(name: str, *args: Any, out: torch.Tensor, reason: str, **kwargs: Any) -> None:
    """Input the portable kernel refuses as well: the Ascend kernel declines it (naming `reason`)
    and leaves the error to the portable kernel."""
    with pytest.raises(kiln.KilnError, match=f"does not take {reason}"):
        kiln.call_op(name, *args, out=out, backend="ascend", allow_fallback=False, **kwargs)


def test_declines_what_they_cannot_take() -> None:
    f32, f16 = torch.randn(2, 3), torch.randn(2, 3).half()
    ints = torch.ones(2, 3, dtype=torch.int32)
    empty = torch.empty(0)
    check_declines(
        "aten::add.out", f32.double(), f32.double(), out=empty.double(), reason="dtype Double"
    )
    check_declines("aten::mul.out", f32, f16, out=empty, reason="other of dtype Half with Float")
    check_declines("aten::mul.out", f16, f16, out=empty, reason="out of dtype Float with Half")
    check_declines("aten::div.out", ints, ints, out=empty, reason="dtype Int")
    check_declines("aten::div.Scalar_out", ints, 2, out=empty, reason="dtype Int")
    check_declines("aten::sub.out", f32[0], f32, out=empty, reason="a broadcast self")
    check_declines("aten::add.out", f32[0], f32, alpha=2, out=empty, reason="a broadcast self")
    check_declines(
        "aten::add.out", f32[:, :1].contiguous(), f32[:1], out=empty, reason="a broadcast self"
    )
    big = torch.randn(2, 3, 4)
    check_declines("aten::add.out", big, torch.randn(3, 1), out=empty, reason="this broadcast")
    check_declines("aten::add.out", big, torch.randn(3, 4), out=empty, reason="this broadcast")
    check_declines("aten::add.out", f32, f32, alpha=0.1, out=empty, reason="alpha 0.1")
    check_declines("aten::add.Scalar_out", f32, True, out=empty, reason="a Bool other")
    check_declines(
        "aten::add.Scalar_out", ints, 2**40, out=ints.clone(), reason="other 1099511627776 beyond"
    )
    check_declines(
        "aten::mul.Scalar_out", ints, 0.5, out=empty, reason="out of dtype Float with Int"
    )
    with on_soc("Ascend310P"):
        b = torch.randn(4, dtype=torch.bfloat16)
        check_declines("aten::add.out", b, b, out=empty.bfloat16(), reason="BFloat16")
    declines_invalid("aten::add.out", f32, f32, alpha=True, out=empty, reason="a Bool alpha")
    declines_invalid(
        "aten::add.out", ints, ints, alpha=1.5, out=ints.clone(), reason="a floating alpha"
    )
    declines_invalid("aten::add.out", f16, f16, alpha=1e5, out=empty.half(), reason="alpha 100000")
    declines_invalid(
        "aten::sub.out", ints, ints, alpha=-(2**31), out=ints.clone(), reason="alpha -2147483648"
    )
    declines_invalid(
        "aten::add.out", f32, torch.randn(4), out=empty, reason="shapes that do not broadcast"
    )
