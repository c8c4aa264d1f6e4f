"""allclose.out and allclose.Tensor (ExecuTorch's custom_ops.yaml, namespace aten) against
torch.allclose: self and other broadcast together, every dtype, NaN and infinity, the tolerances'
rounding in each dtype, and torch's refusals."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import raises
from strategies import ALL_DTYPES, FLOAT_DTYPES, broadcastable_shapes, make_tensor, seeds

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

OUT = "aten::allclose.out"
TENSOR = "aten::allclose.Tensor"
tolerances = st.sampled_from([(1e-5, 1e-8), (0.0, 0.0), (1e-2, 1e-3), (0.1, 0.0), (0.0, 0.5)])


def around(value: float, shape: tuple, dtype: torch.dtype, seed: int, spread: float) -> Any:
    """A tensor of `shape` near `value`, with relative and absolute noise of about `spread`, so
    that pairs of such tensors sit near the tolerances; `special` sprinkles nan and infinities."""
    noise = make_tensor(torch.float64, shape, seed, magnitude=1.0)
    return (value * (1 + spread * noise) + spread * noise).to(dtype)


def check(
    call_op: Any, a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float, equal_nan: bool
) -> None:
    """Both overloads give torch.allclose's answer, or refuse what torch refuses."""
    try:
        expected = torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    except RuntimeError:
        with raises(call_op):
            call_op(OUT, a, b, rtol, atol, equal_nan, out=torch.empty(0, dtype=torch.bool))
        with raises(call_op):
            call_op(TENSOR, a, b, rtol, atol, equal_nan)
        return
    out = call_op(OUT, a, b, rtol, atol, equal_nan, out=torch.empty(0, dtype=torch.bool))
    torch.testing.assert_close(out, torch.tensor(expected))
    new = call_op(TENSOR, a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    torch.testing.assert_close(new, torch.tensor(expected))


@SETTINGS
@given(
    shapes=broadcastable_shapes(),
    dtype=st.sampled_from(ALL_DTYPES),
    tolerance=tolerances,
    equal_nan=st.booleans(),
    spread=st.sampled_from([0.0, 1e-4, 1e-2, 1.0]),
    seed=seeds,
    special=st.booleans(),
)
def test_allclose_matches_torch(
    call_op: Any,
    shapes: tuple[tuple, tuple],
    dtype: torch.dtype,
    tolerance: tuple[float, float],
    equal_nan: bool,
    spread: float,
    seed: int,
    special: bool,
) -> None:
    value = float(make_tensor(torch.float64, (), seed, magnitude=50.0))
    a = around(value, shapes[0], dtype, seed + 1, spread)
    b = around(value, shapes[1], dtype, seed + 2, spread)
    if special and dtype.is_floating_point:
        for t, fill in ((a, float("nan")), (b, float("nan")), (b, float("inf"))):
            if t.numel():
                t.view(-1)[seed % t.numel()] = fill
    check(call_op, a, b, *tolerance, equal_nan)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_each_dtype_rounds_the_tolerance_as_torch(call_op: Any, dtype: torch.dtype) -> None:
    # Pairs right at |a - b| = atol + rtol * |b|, one element at a time: the answer depends on
    # how each step rounds in the dtype (16-bit floats round every step, atol too).
    b = make_tensor(torch.float64, (60,), 3) * torch.logspace(-3, 3, 60, dtype=torch.float64)
    for rtol, atol in [(1e-2, 1e-3), (3e-3, 7e-4), (0.37, 0.013)]:
        bound = atol + rtol * b.abs()
        for factor in (0.999, 1.0, 1.001):
            a = (b + factor * bound).to(dtype)
            for i in range(0, 60, 3):
                check(call_op, a[i : i + 1], b[i : i + 1].to(dtype), rtol, atol, False)


def test_integers_compare_in_float(call_op: Any) -> None:
    # torch compares integers in the default dtype (float32) unless both tolerances are 0.
    a = torch.tensor([2**40 + 1])
    b = torch.tensor([2**40])
    check(call_op, a, b, 0.0, 0.5, False)
    check(call_op, a, b, 0.0, 0.0, False)
    check(
        call_op,
        torch.tensor([100], dtype=torch.int8),
        torch.tensor([-100], dtype=torch.int8),
        0.0,
        60.0,
        False,
    )
    check(call_op, torch.tensor([True]), torch.tensor([False]), 0.0, 1.0, False)


def test_special_values(call_op: Any) -> None:
    inf, nan = float("inf"), float("nan")
    for a, b in [([inf], [inf]), ([inf], [-inf]), ([nan], [nan]), ([1.0], [inf]), ([], [])]:
        for equal_nan in (False, True):
            check(call_op, torch.tensor(a), torch.tensor(b), 1e-5, 1e-8, equal_nan)


def test_refusals_match_torch(call_op: Any) -> None:
    a = torch.randn(3, 4)
    check(call_op, a, a.double(), 1e-5, 1e-8, False)  # "Float did not match Double"
    check(call_op, a, a, -1.0, 1e-8, False)  # rtol < 0
    check(call_op, a, a, 1e-5, -1.0, False)  # atol < 0
    check(call_op, a, torch.randn(5), 1e-5, 1e-8, False)  # not broadcastable
    with raises(call_op, "dtype Bool"):
        call_op(OUT, a, a, out=torch.empty(0))


def test_out_keeps_a_one_element_shape(call_op: Any) -> None:
    out = call_op(OUT, torch.ones(3), torch.ones(3), out=torch.zeros(1, 1, dtype=torch.bool))
    torch.testing.assert_close(out, torch.ones(1, 1, dtype=torch.bool))
    out = call_op(OUT, torch.ones(3), torch.zeros(3), out=torch.ones(2, dtype=torch.bool))
    torch.testing.assert_close(out, torch.tensor(False))
