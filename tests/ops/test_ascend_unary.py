"""The Ascend unary kernels (relu, gelu, sigmoid, tanh, exp, sqrt, rsqrt, abs, neg, clamp)
against torch, on both SoC profiles."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from ascend_checks import SIZES, SOCS, check_ascend, check_declines, float_dtypes, on_soc

import kiln

F = torch.nn.functional

# Ops of floating dtypes only, with torch's function and the input range they are checked on.
FLOAT_OPS: dict[str, tuple[Callable[[torch.Tensor], torch.Tensor], float]] = {
    "gelu": (F.gelu, 6.0),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), 6.0),
    "sigmoid": (torch.sigmoid, 12.0),
    "tanh": (torch.tanh, 4.0),
    "exp": (torch.exp, 10.0),
    "sqrt": (torch.sqrt, 100.0),
    "rsqrt": (torch.rsqrt, 100.0),
}
# Ops that also take int32.
SAME_DTYPE_OPS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "relu": torch.relu,
    "abs": torch.abs,
    "neg": torch.neg,
}
SPECIALS = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-30, -1e-30, 88.0, -88.0]
SPECIALS += [100.0, -100.0, 1e30, -1e30, 3.9, -3.9, 0.55, -0.55, 0.5, -0.5]


def op_name(op: str) -> str:
    return "aten::gelu.out" if op.startswith("gelu") else f"aten::{op}.out"


def op_kwargs(op: str) -> dict[str, str]:
    return {"approximate": "tanh" if op == "gelu_tanh" else "none"} if op.startswith("gelu") else {}


def expected(fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """torch's result computed in float64 and rounded once to x's dtype: torch's own float and
    bfloat16 erf-gelu cancels for x < 0 and gives NaN at +inf."""
    return fn(x.double()).to(x.dtype)


def rotate(dtypes: list[torch.dtype], size: int, index: int) -> list[torch.dtype]:
    """All dtypes, except on the largest size (comparing a million elements is slow): one dtype
    per op there, rotating, so each op and each dtype still meets several tiles per core."""
    return [dtypes[index % len(dtypes)]] if size == SIZES[-1] else dtypes


def inputs(op: str, size: int, dtype: torch.dtype, scale: float) -> torch.Tensor:
    x = torch.randn(size, generator=torch.Generator().manual_seed(size)) * scale / 3
    return (x.abs() if op in ("sqrt", "rsqrt") else x).to(dtype)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_relu(soc: str, size: int) -> None:
    with on_soc(soc):
        for dtype in [*float_dtypes(soc), torch.int32]:
            x = (torch.randn(size) * 100).to(dtype)
            out = torch.empty(0, dtype=dtype)
            check_ascend("aten::relu.out", torch.relu(x), x, out=out)


def test_relu_keeps_shape_and_handles_empty() -> None:
    x = torch.randn(3, 0, 5)
    check_ascend("aten::relu.out", torch.relu(x), x, out=torch.empty(0))
    y = torch.randn(2, 3, 5)
    check_ascend("aten::relu.out", torch.relu(y), y, out=torch.empty(0))


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_float_ops(soc: str, size: int) -> None:
    with on_soc(soc):
        for index, (op, (fn, scale)) in enumerate(FLOAT_OPS.items()):
            for dtype in rotate(float_dtypes(soc), size, index):
                x = inputs(op, size, dtype, scale)
                out = torch.empty(0, dtype=dtype)
                check_ascend(op_name(op), expected(fn, x), x, out=out, **op_kwargs(op))


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("size", SIZES)
def test_same_dtype_ops(soc: str, size: int) -> None:
    with on_soc(soc):
        for index, (op, fn) in enumerate(SAME_DTYPE_OPS.items()):
            for dtype in rotate([*float_dtypes(soc), torch.int32], size, index):
                x = (torch.randn(size) * 1000).to(dtype)
                if dtype == torch.int32 and size > 2:
                    x[:2] = torch.tensor([-(2**31), 2**31 - 1])  # abs and neg wrap like torch
                check_ascend(f"aten::{op}.out", fn(x), x, out=torch.empty(0, dtype=dtype))


@pytest.mark.parametrize("soc", SOCS)
def test_special_values(soc: str) -> None:
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            x = torch.tensor(SPECIALS).to(dtype)
            for op, (fn, _) in FLOAT_OPS.items():
                check_ascend(
                    op_name(op),
                    expected(fn, x),
                    x,
                    out=torch.empty(0, dtype=dtype),
                    **op_kwargs(op),
                )
            for op, fn in SAME_DTYPE_OPS.items():
                check_ascend(f"aten::{op}.out", fn(x), x, out=torch.empty(0, dtype=dtype))
            check_ascend(
                "aten::clamp.out", torch.clamp(x, -1, 2), x, -1, 2, out=torch.empty(0, dtype=dtype)
            )


def test_signed_zeros() -> None:
    x = torch.tensor([-0.0, 0.0] * 32)
    for name, fn in [("aten::tanh.out", torch.tanh), ("aten::neg.out", torch.neg)]:
        out = kiln.call_op(name, x, out=torch.empty(0), backend="ascend", allow_fallback=False)
        assert torch.equal(out.signbit(), fn(x).signbit()), name
    out = kiln.call_op(
        "aten::gelu.out", x, out=torch.empty(0), backend="ascend", allow_fallback=False
    )
    assert torch.equal(out.signbit(), F.gelu(x).signbit())


def test_gelu_float32_accuracy() -> None:
    # The whole range against float64: the erf and tanh formulas do not cancel in either tail.
    x = torch.linspace(-12, 12, 100001)
    for approximate in ["none", "tanh"]:
        out = kiln.call_op(
            "aten::gelu.out",
            x,
            approximate=approximate,
            out=torch.empty(0),
            backend="ascend",
            allow_fallback=False,
        )
        reference = F.gelu(x.double(), approximate=approximate).float()
        torch.testing.assert_close(out, reference, rtol=1e-6, atol=2e-6)


@pytest.mark.parametrize("soc", SOCS)
def test_clamp(soc: str) -> None:
    limits = [(-0.3, 1.7), (-1, None), (None, 0.1), (2.0, -2.0), (-3, 4), (-float("inf"), 0.5)]
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            for size in (7, 4099, 100_003):
                x = (torch.randn(size) * 3).to(dtype)
                x[0] = float("nan")
                for low, high in limits:
                    out = torch.empty(0, dtype=dtype)
                    check_ascend(
                        "aten::clamp.out", torch.clamp(x, low, high), x, low, high, out=out
                    )
        x = torch.randint(-1000, 1000, (100_003,), dtype=torch.int32)
        for low, high in [(-5, 300), (None, -2), (7, None), (10, -10), (True, None)]:
            out = torch.empty(0, dtype=torch.int32)
            check_ascend("aten::clamp.out", torch.clamp(x, low, high), x, low, high, out=out)


def test_keeps_shape_and_handles_empty() -> None:
    for shape in [(3, 0, 5), (2, 3, 5), ()]:
        x = torch.randn(shape)
        check_ascend("aten::sigmoid.out", torch.sigmoid(x), x, out=torch.empty(0))
        check_ascend("aten::clamp.out", torch.clamp(x, 0, 1), x, 0, 1, out=torch.empty(0))


def test_relu_declines_what_it_cannot_take() -> None:
    x = torch.randn(4, dtype=torch.float64)
    check_declines(
        "aten::relu.out", x, out=torch.empty(0, dtype=torch.float64), reason="dtype Double"
    )
    with on_soc("Ascend310P"):
        b = torch.randn(4, dtype=torch.bfloat16)
        check_declines(
            "aten::relu.out", b, out=torch.empty(0, dtype=torch.bfloat16), reason="BFloat16"
        )


def declines_invalid(
    name: str, *args: object, out: torch.Tensor, reason: str, **kwargs: object
) -> None:
    """Input the portable kernel refuses as well: the Ascend kernel declines it (naming `reason`)
    and leaves the error to the portable kernel."""
    with pytest.raises(kiln.KilnError, match=f"does not take {reason}"):
        kiln.call_op(name, *args, out=out, backend="ascend", allow_fallback=False, **kwargs)


def test_declines_what_they_cannot_take() -> None:
    ints = torch.arange(-4, 4, dtype=torch.int32)
    doubles = torch.randn(4, dtype=torch.float64)
    for op in FLOAT_OPS:
        kwargs = op_kwargs(op)
        check_declines(
            op_name(op),
            doubles,
            out=torch.empty(0, dtype=torch.float64),
            reason="dtype Double",
            **kwargs,
        )
    for op in ("sigmoid", "tanh", "exp", "sqrt", "rsqrt"):
        # torch computes Int in Float: the portable kernel does.
        check_declines(op_name(op), ints, out=torch.empty(0), reason="dtype Int")
    half = torch.randn(4, dtype=torch.float16)
    check_declines("aten::exp.out", half, out=torch.empty(0), reason="out of dtype Float with Half")
    with on_soc("Ascend310P"):
        b = torch.randn(4, dtype=torch.bfloat16)
        check_declines(
            "aten::gelu.out", b, out=torch.empty(0, dtype=torch.bfloat16), reason="BFloat16"
        )
    x = torch.randn(8)
    check_declines(
        "aten::clamp.out", x, float("nan"), 1.0, out=torch.empty(0), reason="a NaN min limit"
    )
    check_declines(
        "aten::clamp.out", ints, 0.5, None, out=torch.empty(0), reason="a floating min limit"
    )
    declines_invalid(
        "aten::gelu.out", x, approximate="exact", out=torch.empty(0), reason="approximate='exact'"
    )
    declines_invalid(
        "aten::clamp.out",
        ints,
        None,
        2**40,
        out=torch.empty(0, dtype=torch.int32),
        reason="max limit",
    )
    declines_invalid(
        "aten::clamp.out", x, None, None, out=torch.empty(0), reason="clamp without limits"
    )
    declines_invalid(
        "aten::clamp.out",
        half,
        -1e5,
        None,
        out=torch.empty(0, dtype=torch.float16),
        reason="min limit -100000 beyond",
    )
