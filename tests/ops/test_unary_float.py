"""Floating unary functions against torch: aten::exp.out, expm1, log, log2, log10, log1p, sqrt,
rsqrt, reciprocal, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, sigmoid
and erf (integer and bool inputs compute in Float)."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import backend_of, check_op, eps, magnitude, raises
from strategies import ALL_DTYPES, FLOAT_DTYPES, dtypes, make_tensor, out_like, tensors

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
OPS = [
    "aten::exp.out",
    "aten::log.out",
    "aten::log1p.out",
    "aten::sqrt.out",
    "aten::rsqrt.out",
    "aten::reciprocal.out",
    "aten::sin.out",
    "aten::cos.out",
    "aten::tanh.out",
    "aten::sigmoid.out",
    "aten::erf.out",
    "aten::expm1.out",
    "aten::log2.out",
    "aten::log10.out",
    "aten::tan.out",
    "aten::asin.out",
    "aten::acos.out",
    "aten::atan.out",
    "aten::sinh.out",
    "aten::cosh.out",
    "aten::asinh.out",
    "aten::acosh.out",
    "aten::atanh.out",
]


def result_dtype(dtype: torch.dtype) -> torch.dtype:
    return dtype if dtype.is_floating_point else torch.get_default_dtype()


# libtorch's vectorised sinh and cosh overflow where e^|x| does, before the results do: to inf for
# |x| in these bands, where the results are finite (Kiln's are; the float32 accuracy test checks
# them against float64). The differential checks leave the bands out.
OVERFLOW_BANDS = {torch.float64: (709.78, 710.48)}
FLOAT_OVERFLOW_BAND = (88.72, 89.42)


def without_overflow_band(op: str, a: torch.Tensor) -> torch.Tensor:
    if op not in ("sinh", "cosh") or a.dtype == torch.bool:
        return a
    low, high = OVERFLOW_BANDS.get(a.dtype, FLOAT_OVERFLOW_BAND)
    band = (a.double().abs() > low) & (a.double().abs() <= high)
    return torch.where(band, torch.zeros((), dtype=a.dtype), a)


def run(call_op: Any, op: str, a: torch.Tensor, out: torch.Tensor) -> None:
    a = without_overflow_band(op, a)
    # A Half or BFloat16 result written to a wider out keeps its own precision, and ATen may
    # round an intermediate (rsqrt's sqrt) to it: allow two of its ulp.
    compute = result_dtype(a.dtype)
    atol = 0.0
    if out.dtype.is_floating_point and eps(compute) > eps(out.dtype):
        atol = 2 * eps(compute) * magnitude(getattr(torch, op)(a.double()))
    check_op(call_op, f"aten::{op}.out", getattr(aten, op).out, (a,), out=out, atol=atol)


@SETTINGS
@given(data=st.data())
@pytest.mark.parametrize("op", OPS)
def test_floating_unary_matches_torch(call_op: Any, op: str, data: Any) -> None:
    op = op.removeprefix("aten::").removesuffix(".out")
    a = data.draw(tensors(dtypes, magnitude=data.draw(st.sampled_from([0.01, 1.0, 10.0, 100.0]))))
    result = result_dtype(a.dtype)
    # Any floating out dtype is fine (the result converts); integer outs are rejected.
    out_dtype = data.draw(st.sampled_from([result, result, *FLOAT_DTYPES, torch.int32]))
    shape = tuple(a.shape) if data.draw(st.booleans()) else None
    run(call_op, op, a, out_like(out_dtype, shape))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_floating_unary_long_inputs(call_op: Any, op: str, dtype: torch.dtype) -> None:
    op = op.removeprefix("aten::").removesuffix(".out")
    # Long enough for the vector loops and several conversion chunks; in place when possible.
    a = make_tensor(dtype, (2, 600), 5, special=True, magnitude=5.0, int_range=(-50, 50))
    run(call_op, op, a, torch.empty(0, dtype=result_dtype(dtype)))
    if dtype.is_floating_point:
        expected = getattr(aten, op)(a)
        call_op(f"aten::{op}.out", a, out=a)
        torch.testing.assert_close(
            a, expected, rtol=2.6e-6 if dtype == torch.float32 else 2e-2, atol=1e-6, equal_nan=True
        )


@pytest.mark.parametrize("op", OPS)
def test_floating_unary_float32_accuracy(call_op: Any, op: str) -> None:
    op = op.removeprefix("aten::").removesuffix(".out")
    # Wide ranges and edge values against float64 torch: within a few ulp (rtol 1e-6 or so).
    gen = torch.Generator().manual_seed(7)
    wide = torch.cat(
        [
            torch.randn(20000, generator=gen) * 10 ** torch.randint(-8, 3, (20000,), generator=gen),
            torch.linspace(-100, 100, 20001),
            torch.tensor([0.0, -0.0, 1e-45, -1e-45, 1e-38, 88.7, -88.7, 89.0, -104.0, 3.9, -3.9]),
            torch.tensor([float("inf"), -float("inf"), float("nan"), 1e30, -1e30]),
        ]
    )
    if op in ("log", "log2", "log10", "sqrt", "rsqrt"):
        wide = wide.abs()
    if op == "log1p":
        wide = torch.where(wide < -1, -wide, wide)
    if op in ("sin", "cos"):
        wide = wide[wide.abs() < 1e4]
    if op in ("asin", "acos", "atanh"):
        # Into (-1, 1), keeping the edges and the values beyond (NaN).
        edges = torch.tensor([1.0, -1.0, 0.5, -0.5, 1.0000001, -1.0000001, 2.0])
        wide = torch.cat([wide / (1 + wide.abs()), wide.tanh(), edges])
    if op == "acosh":
        wide = torch.cat([wide.abs() + 1, torch.tensor([1.0, 0.999, -1.0, 1.0000001])])
    if backend_of(call_op) == "aten":
        wide = without_overflow_band(op, wide)  # libtorch's own overflow (see OVERFLOW_BANDS)
    got = call_op(f"aten::{op}.out", wide, out=torch.empty(0))
    reference = getattr(torch, op)(wide.double()).float()
    # Subnormal results may flush to zero: the absolute tolerance covers them.
    torch.testing.assert_close(got, reference, rtol=1e-6, atol=1e-37, equal_nan=True)


@pytest.mark.parametrize(("op", "ulps"), [("sin", 2.0), ("cos", 2.0), ("tan", 3.0)])
def test_trig_reduction_tiers(call_op: Any, op: str, ulps: float) -> None:
    # Below 1024 the argument is reduced in float; a block holding a larger one reduces in
    # double; a block holding one past 4.2e8 (or inf) takes the C library. Every tier, dense near
    # the multiples of pi/2 up to 1024, within a few ulp of float64.
    gen = torch.Generator().manual_seed(3)
    small = torch.linspace(-1023.99, 1023.99, 256 * 800)
    spread = torch.empty(256 * 40).uniform_(math.log(1024), math.log(4e8), generator=gen).exp()
    medium = torch.where(torch.arange(spread.numel()) % 2 == 0, spread, -spread)
    mixed = small[: 256 * 4].clone()
    mixed[::256] = 1e9
    mixed[1::256] = float("inf")
    edges = torch.tensor([float("nan"), 4.2e8, -4.2e8, 1024.0, -1024.0, 1023.9999, 0.0, -0.0])
    x = torch.cat([small, medium, mixed, edges])
    got = call_op(f"aten::{op}.out", x, out=torch.empty(0)).double()
    exact = getattr(torch, op)(x.double())
    rounded = exact.float().abs()
    ulp = (torch.nextafter(rounded, torch.tensor(float("inf"))) - rounded).double()
    finite = torch.isfinite(exact)
    assert ((got - exact).abs() / ulp)[finite].max().item() <= ulps
    assert torch.equal(got.isnan(), exact.isnan())


def test_floating_unary_errors(call_op: Any) -> None:
    with raises(call_op, "can't be cast to the desired output type Int"):
        call_op("aten::exp.out", torch.ones(2), out=torch.empty(0, dtype=torch.int32))
    with raises(call_op, "can't be cast"):
        call_op(
            "aten::sqrt.out",
            torch.ones(2, dtype=torch.int64),
            out=torch.empty(0, dtype=torch.int64),
        )
    with raises(call_op, "can't be cast"):
        call_op(
            "aten::tanh.out", torch.ones(2, dtype=torch.bool), out=torch.empty(0, dtype=torch.bool)
        )


LOG_OPS = ["log", "log2", "log10", "log1p"]


@pytest.mark.parametrize("op", LOG_OPS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_log_family_edge_blocks(call_op: Any, op: str, dtype: torch.dtype) -> None:
    # The vector loops take positive normal inputs only; a block holding a zero, a subnormal, a
    # negative, an infinity or NaN takes the edge-complete formula. Edges land in some blocks
    # (one at each end, and a few in the middle), around long runs of ordinary values.
    tiny = torch.finfo(dtype).tiny
    edges = torch.tensor(
        [0.0, -0.0, tiny / 4, tiny, -1.0, -1.5, -tiny, float("inf"), -float("inf"), float("nan")],
        dtype=dtype,
    )
    gen = torch.Generator().manual_seed(11)
    a = torch.rand(3000, generator=gen, dtype=torch.float64).to(dtype) * 4 + 1e-3
    spots = torch.tensor([0, 1, 700, 701, 1500, 2999])
    a[spots] = edges[: len(spots)]
    a[2000:2004] = edges[6:]
    run(call_op, op, a, torch.empty(0, dtype=dtype))
    got = call_op(f"aten::{op}.out", a, out=torch.empty(0, dtype=dtype))
    assert torch.equal(got.isnan(), getattr(torch, op)(a).isnan())


@pytest.mark.parametrize("op", LOG_OPS)
def test_log_family_float64_accuracy(call_op: Any, op: str) -> None:
    # Over every binade, subnormals included, against torch's float64 (itself within 1 ulp).
    gen = torch.Generator().manual_seed(5)
    exponents = torch.randint(-1074, 1024, (20000,), generator=gen).double()
    a = torch.rand(20000, generator=gen, dtype=torch.float64).add(1).mul(2.0**exponents)
    a = torch.cat([a[a.isfinite()], torch.linspace(0.5, 2, 2001, dtype=torch.float64)])
    if op == "log1p":
        a = torch.cat([a, -a[a < 1], torch.tensor([1e-300, -1e-300, 2.0**-60, -(2.0**-60)])])
    got = call_op(f"aten::{op}.out", a, out=torch.empty(0, dtype=torch.float64))
    # ATen's log1p drops digits of subnormal x (whose log1p is x); the atol covers them.
    torch.testing.assert_close(got, getattr(torch, op)(a), rtol=1e-15, atol=1e-300, equal_nan=True)


def test_erf_float64_accuracy(call_op: Any) -> None:
    # Both of erf's double formulas (|x| < 1 and beyond) and the switch between them, tiny and
    # subnormal x (erf(x) ~ 2x / sqrt(pi)), the range where erf rounds to 1, and the edges: against
    # torch's float64 (within 1 ulp), to a few ulp.
    gen = torch.Generator().manual_seed(9)
    exponents = torch.randint(-1074, 4, (20000,), generator=gen).double()
    a = torch.rand(20000, generator=gen, dtype=torch.float64).add(1).mul(2.0**exponents)
    edges = [0.0, 1.0, 1 - 2**-53, 1 + 2**-52, 6.0, 5.9, 27.0, 1e300, float("inf"), float("nan")]
    a = torch.cat(
        [
            a,
            torch.linspace(0, 7, 14001, dtype=torch.float64),
            torch.tensor(edges + [5e-324], dtype=torch.float64),
        ]
    )
    a = torch.cat([a, -a])
    got = call_op("aten::erf.out", a, out=torch.empty(0, dtype=torch.float64))
    # Subnormal results may differ by their last step (5e-324): the atol covers a few.
    torch.testing.assert_close(got, torch.erf(a), rtol=5e-16, atol=2e-323, equal_nan=True)
    # The sign of zero survives: erf(-0) = -0.
    zeros = call_op("aten::erf.out", torch.tensor([0.0, -0.0], dtype=torch.float64), out=a[:0])
    assert zeros.signbit().tolist() == [False, True]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_erf_edges(call_op: Any, dtype: torch.dtype) -> None:
    tiny = torch.finfo(dtype).tiny
    values = [0.0, -0.0, tiny / 4, -tiny / 4, 3.9, 4.0, 4.5, 6.5, 40.0, 1e30]
    a = torch.tensor(values + [float("inf"), float("nan")], dtype=dtype)
    a = torch.cat([a, -a])
    got = call_op("aten::erf.out", a, out=torch.empty(0, dtype=dtype))
    expected = torch.erf(a.double()).to(dtype)
    rtol = 2 * eps(dtype)
    torch.testing.assert_close(got, expected, rtol=rtol, atol=0, equal_nan=True)
    assert torch.equal(got.signbit(), a.signbit())
