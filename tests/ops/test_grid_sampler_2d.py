"""aten::grid_sampler_2d.out against torch: every interpolation and padding mode, align_corners
both ways, grids reaching past the edges and holding NaN and infinities.

ATen computes Half and BFloat16 rounding every intermediate (coordinates included) to the 16-bit
type; Kiln computes them in float and rounds once, so for those dtypes the reference is torch's
float result on the same (widened) inputs, rounded to the dtype."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, backend_of, check_op, is_portable, magnitude, raises
from strategies import FLOAT_DTYPES, make_tensor, out_tensors

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
NAME = "aten::grid_sampler_2d.out"
OP = aten.grid_sampler_2d.out


def make_grid(dtype: torch.dtype, shape: tuple, seed: int, special: bool) -> torch.Tensor:
    """Locations mostly inside [-1, 1], some past the edges; with `special`, also NaN, infinities
    and huge values."""
    gen = torch.Generator().manual_seed(seed)
    grid = (torch.rand(shape, generator=gen, dtype=torch.float64) * 2.8 - 1.4).to(dtype)
    if special and grid.numel():
        picks = torch.randint(0, 10, shape, generator=gen)
        values = torch.tensor([float("nan"), float("inf"), -float("inf"), 1e20, -7.0, 3.0])
        mask = picks < len(values)
        grid[mask] = values[picks[mask]].to(dtype)
    return grid


@SETTINGS
@given(data=st.data())
def test_grid_sampler_2d_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from([torch.float32, torch.float64]))
    n = data.draw(st.integers(0, 2))
    shape = (
        n,
        data.draw(st.integers(0, 3)),
        data.draw(st.integers(1, 6)),
        data.draw(st.integers(1, 6)),
    )
    grid_shape = (n, data.draw(st.integers(0, 5)), data.draw(st.integers(0, 5)), 2)
    seed = data.draw(st.integers(0, 2**31 - 1))
    x = make_tensor(dtype, shape, seed, special=data.draw(st.integers(0, 5)) == 0)
    grid = make_grid(dtype, grid_shape, seed + 1, special=data.draw(st.booleans()))
    modes = (data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2)), data.draw(st.booleans()))
    out_shape = (n, shape[1], grid_shape[1], grid_shape[2])
    out = data.draw(out_tensors(dtype, out_shape, other_dtype_p=0.1))
    # Bicubic weights reach 1.5 in each direction and partly cancel: a few units in the last
    # place of the largest input.
    atol = 16 * torch.finfo(dtype).eps * magnitude(x)
    check_op(call_op, NAME, OP, (x, grid, *modes), out=out, atol=atol)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("interpolation", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
def test_grid_sampler_2d_16_bit(
    call_op: Any, dtype: torch.dtype, interpolation: int, padding: int
) -> None:
    x = make_tensor(dtype, (2, 3, 7, 9), 11, magnitude=1.0)
    grid = make_grid(dtype, (2, 4, 5, 2), 12, special=False)
    for align in (False, True):
        args = (x, grid, interpolation, padding, align)
        expected = aten.grid_sampler_2d(x.float(), grid.float(), *args[2:]).to(dtype)
        actual = call_op(NAME, *args, out=torch.empty(0, dtype=dtype))
        if backend_of(call_op) == "aten":  # libtorch's own 16-bit rounding
            torch.testing.assert_close(actual, aten.grid_sampler_2d(*args), rtol=0, atol=0)
        else:
            assert_same(actual, expected)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES[2:])
def test_grid_sampler_2d_large(call_op: Any, dtype: torch.dtype) -> None:
    x = make_tensor(dtype, (2, 8, 40, 50), 3, magnitude=1.0)
    grid = make_grid(dtype, (2, 30, 35, 2), 4, special=False)
    for interpolation in range(3):
        for padding in range(3):
            args = (x, grid, interpolation, padding, interpolation == 1)
            check_op(call_op, NAME, OP, args, out=torch.empty(0, dtype=dtype), atol=1e-5)


ones = torch.ones


@pytest.mark.parametrize(
    ("x", "grid"),
    [
        (ones(2, 3, 7), ones(3, 4, 2)),  # 3-d
        (ones(2, 3, 5, 5), ones(1, 4, 4, 2)),  # batch sizes differ
        (ones(1, 3, 5, 5), ones(1, 4, 4, 3)),  # 3 coordinates
        (ones(1, 3, 0, 5), ones(1, 4, 4, 2)),  # empty image
        (ones(1, 3, 5, 5, dtype=torch.int32), ones(1, 4, 4, 2, dtype=torch.int32)),
        (ones(1, 3, 5, 5, dtype=torch.uint8), ones(1, 4, 4, 2, dtype=torch.uint8)),
        (ones(1, 3, 5, 5), ones(1, 4, 4, 2, dtype=torch.float64)),  # grid of another dtype
    ],
)
def test_grid_sampler_2d_refusals(call_op: Any, x: torch.Tensor, grid: torch.Tensor) -> None:
    check_op(call_op, NAME, OP, (x, grid, 0, 0, False), out=torch.empty(0, dtype=x.dtype))


def test_grid_sampler_2d_refuses_other_out_dtype(call_op: Any) -> None:
    check_op(
        call_op,
        NAME,
        OP,
        (ones(1, 2, 3, 3), ones(1, 2, 2, 2), 0, 0, False),
        out=torch.empty(0, dtype=torch.float64),
    )


@pytest.mark.parametrize("modes", [(3, 0), (-1, 0), (0, 3), (0, -1)])
def test_grid_sampler_2d_refuses_unknown_modes(call_op: Any, modes: tuple[int, int]) -> None:
    # ATen leaves out unwritten for an unknown mode; Kiln refuses it.
    if not is_portable(call_op):
        pytest.skip("libtorch returns an unwritten tensor for an unknown mode")
    with raises(call_op, "must be 0"):
        call_op(NAME, ones(1, 2, 3, 3), ones(1, 2, 2, 2), *modes, False, out=torch.empty(0))
