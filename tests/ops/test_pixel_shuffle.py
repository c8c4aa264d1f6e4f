"""aten::pixel_shuffle.out and pixel_unshuffle.out against torch: batch dims, every dtype, factors
that do not divide the channels or the image."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
from strategies import ALL_DTYPES, dtypes, make_tensor, out_tensors, seeds

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
SHUFFLE = "aten::pixel_shuffle.out"
UNSHUFFLE = "aten::pixel_unshuffle.out"


def result_shape(op: Any, x: torch.Tensor, factor: int) -> tuple[int, ...] | None:
    try:
        return tuple(op(x, factor).shape)
    except RuntimeError:
        return None


@SETTINGS
@given(data=st.data())
def test_pixel_shuffle_matches_torch(call_op: Any, data: Any) -> None:
    factor = data.draw(st.sampled_from([1, 2, 2, 3, 0, -1]))
    square = max(factor, 1) ** 2
    batch = data.draw(st.lists(st.integers(0, 3), min_size=0, max_size=2))
    channels = square * data.draw(st.integers(0, 3)) + data.draw(st.sampled_from([0, 0, 0, 1]))
    shape = (*batch, channels, data.draw(st.integers(0, 5)), data.draw(st.integers(0, 5)))
    x = make_tensor(data.draw(dtypes), shape, data.draw(seeds))
    out = data.draw(out_tensors(x.dtype, result_shape(aten.pixel_shuffle, x, factor) or (0,)))
    check_op(call_op, SHUFFLE, aten.pixel_shuffle.out, (x, factor), out=out)


@SETTINGS
@given(data=st.data())
def test_pixel_unshuffle_matches_torch(call_op: Any, data: Any) -> None:
    factor = data.draw(st.sampled_from([1, 2, 2, 3, 0, -1]))
    step = max(factor, 1)
    batch = data.draw(st.lists(st.integers(0, 3), min_size=0, max_size=2))
    sides = [
        step * data.draw(st.integers(0, 3)) + data.draw(st.sampled_from([0, 0, 1])) for _ in "hw"
    ]
    shape = (*batch, data.draw(st.integers(0, 3)), *sides)
    x = make_tensor(data.draw(dtypes), shape, data.draw(seeds))
    out = data.draw(out_tensors(x.dtype, result_shape(aten.pixel_unshuffle, x, factor) or (0,)))
    check_op(call_op, UNSHUFFLE, aten.pixel_unshuffle.out, (x, factor), out=out)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_pixel_shuffle_round_trip_every_dtype(call_op: Any, dtype: torch.dtype) -> None:
    x = make_tensor(dtype, (2, 18, 7, 5), seed=3)
    out = torch.empty(0, dtype=dtype)
    shuffled = check_op(call_op, SHUFFLE, aten.pixel_shuffle.out, (x, 3), out=out)
    assert shuffled is not None
    check_op(call_op, UNSHUFFLE, aten.pixel_unshuffle.out, (shuffled, 3), out=out)


@pytest.mark.parametrize(
    ("op", "shape", "factor", "text"),
    [
        (SHUFFLE, (4, 3), 2, r"at least 3 dimensions, but got input with 2 dimension\(s\)"),
        (SHUFFLE, (4, 3, 3), 0, "expects a positive upscale_factor, but got 0"),
        (SHUFFLE, (5, 3, 3), 2, r"input.size\(-3\)=5 is not divisible by 4"),
        (UNSHUFFLE, (3,), 1, "at least 3 dimensions"),
        (UNSHUFFLE, (1, 4, 4), -2, "expects a positive downscale_factor, but got -2"),
        (UNSHUFFLE, (1, 5, 4), 2, r"height to be divisible .* input.size\(-2\)=5"),
        (UNSHUFFLE, (1, 4, 3), 2, r"width to be divisible .* input.size\(-1\)=3"),
    ],
)
def test_pixel_shuffle_refusals(
    call_op: Any, op: str, shape: tuple[int, ...], factor: int, text: str
) -> None:
    torch_op = aten.pixel_shuffle if op == SHUFFLE else aten.pixel_unshuffle
    with pytest.raises(RuntimeError):
        torch_op(torch.ones(shape), factor)
    with raises(call_op, text):
        call_op(op, torch.ones(shape), factor, out=torch.empty(0))


def test_pixel_shuffle_out_dtype_must_match(call_op: Any) -> None:
    x = torch.ones(1, 4, 2, 2)
    with raises(call_op, "Expected out tensor to have dtype Float, but got Double"):
        call_op(SHUFFLE, x, 2, out=torch.empty(0, dtype=torch.float64))
