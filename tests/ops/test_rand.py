"""aten::rand.out and randn.out: shape, dtype, distribution and seeding, on every backend.

The values are random, so the differential check is by properties torch's own kernels have too
(the aten backend runs libtorch's): out takes the requested shape and keeps its dtype, rand's
values lie in [0, 1), both follow their distribution (Kolmogorov-Smirnov, moments, no neighbour
correlation; random_checks.py), and kiln.manual_seed makes the values reproducible. The
reproducibility check compares two results with torch.testing.assert_close, which is what
differential_log records for the coverage test.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import raises
from random_checks import (
    assert_distribution,
    normal_cdf,
    normal_grid,
    uniform_cdf,
    uniform_grid,
)
from strategies import FLOAT_DTYPES, INT_DTYPES, float_dtypes

import kiln

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

RAND = "aten::rand.out"
RANDN = "aten::randn.out"
sizes = st.lists(st.integers(0, 5), max_size=4)
SAMPLE = 1 << 17


def draw(call_op: Any, op: str, size: list[int], out: torch.Tensor, seed: int) -> torch.Tensor:
    kiln.manual_seed(seed)
    result = call_op(op, size, out=out)
    assert result is out
    return result


@SETTINGS
@given(
    op=st.sampled_from([RAND, RANDN]),
    size=sizes,
    dtype=float_dtypes,
    presized=st.booleans(),
    seed=st.integers(-(2**63), 2**64 - 1),
)
def test_shape_dtype_and_seeding(
    call_op: Any, op: str, size: list[int], dtype: torch.dtype, presized: bool, seed: int
) -> None:
    shape = tuple(size) if presized else (0,)
    first = draw(call_op, op, size, torch.empty(shape, dtype=dtype), seed)
    assert first.shape == tuple(size) and first.dtype == dtype
    assert bool(torch.isfinite(first).all())
    if op == RAND:
        assert bool(((first >= 0) & (first < 1)).all())
    # The same seed gives the same values; the stream then moves on.
    again = draw(call_op, op, size, torch.full(shape, 7.0, dtype=dtype), seed)
    torch.testing.assert_close(again, first, rtol=0, atol=0)
    if first.numel() >= 8:
        following = call_op(op, size, out=torch.empty(0, dtype=dtype))
        assert not torch.equal(following, first)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rand_is_uniform(call_op: Any, dtype: torch.dtype) -> None:
    sample = draw(call_op, RAND, [SAMPLE], torch.empty(0, dtype=dtype), 20260101)
    assert bool(((sample >= 0) & (sample < 1)).all())
    grid = uniform_grid(dtype)
    assert_distribution(
        sample, uniform_cdf, mean=0.5, variance=1 / 12, fourth_moment=1 / 80, grid=grid
    )


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_randn_is_standard_normal(call_op: Any, dtype: torch.dtype) -> None:
    sample = draw(call_op, RANDN, [SAMPLE], torch.empty(0, dtype=dtype), 20260102)
    assert_distribution(
        sample, normal_cdf, mean=0.0, variance=1.0, fourth_moment=3.0, grid=normal_grid(dtype)
    )


def test_other_seeds_give_other_values(call_op: Any) -> None:
    for op in (RAND, RANDN):
        a = draw(call_op, op, [64], torch.empty(0), 1)
        b = draw(call_op, op, [64], torch.empty(0), 2)
        assert int((a == b).sum()) <= 1
        c = draw(call_op, op, [64], torch.empty(0), 1)
        torch.testing.assert_close(c, a, rtol=0, atol=0)


@pytest.mark.parametrize("op", [RAND, RANDN])
def test_refusals(call_op: Any, op: str) -> None:
    # torch: "check_uniform_bounds" / "normal_kernel_cpu" not implemented for integer dtypes.
    for dtype in [*INT_DTYPES, torch.bool]:
        with raises(call_op, "not implemented for"):
            call_op(op, [3], out=torch.empty(0, dtype=dtype))
    # (libtorch words a negative size as a numel overflow)
    with pytest.raises(kiln.KilnError, match="negative dimension|overflow"):
        call_op(op, [2, -1], out=torch.empty(0))


def test_kiln_stream_is_counter_based() -> None:
    """Kiln's own generator (not libtorch's): values depend only on the seed and the position in
    the stream, so one call of 16 floats equals two calls of 8 (4 floats per Philox block), and a
    longer call starts with a shorter one's values."""
    kiln.manual_seed(5)
    whole = kiln.call_op(RAND, [16], out=torch.empty(0))
    kiln.manual_seed(5)
    halves = [kiln.call_op(RAND, [8], out=torch.empty(0)) for _ in range(2)]
    assert torch.equal(torch.cat(halves), whole)
    kiln.manual_seed(5)
    assert torch.equal(kiln.call_op(RAND, [5], out=torch.empty(0)), whole[:5])


def test_manual_seed_arguments() -> None:
    kiln.manual_seed(-1)  # as torch: modulo 2**64
    a = kiln.call_op(RAND, [4], out=torch.empty(0))
    kiln.manual_seed(2**64 - 1)
    torch.testing.assert_close(kiln.call_op(RAND, [4], out=torch.empty(0)), a, rtol=0, atol=0)
    with pytest.raises(ValueError, match="seed must be in"):
        kiln.manual_seed(2**64)
    with pytest.raises(TypeError, match="seed must be an int"):
        kiln.manual_seed(1.5)  # type: ignore[arg-type]
