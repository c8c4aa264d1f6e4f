"""aten::_upsample_bilinear2d_aa.out (antialiased bilinear resampling) against torch: up and
down in each dim, align_corners both ways, explicit scales, and Byte's fixed-point path."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, backend_of, check_op, is_portable
from strategies import make_tensor, out_like

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
NAME = "aten::_upsample_bilinear2d_aa.out"
OP = aten._upsample_bilinear2d_aa.out
DTYPES = [torch.uint8, torch.float32, torch.float64]


def reference(args: tuple[Any, ...]) -> torch.Tensor:
    """torch's result, with two of its failures worked around by running its passes apart.

    For an output width of 1 ATen's height pass writes output row 0 into every row; its Byte
    path for up to 4 channels fails an internal assert on some shapes (a 1x1 output). ATen
    resamples the width, then the height; the reference does the same in two calls, the height
    as a width pass of the transposed image, channels padded to 5 (ATen's general path)."""
    x, (out_h, out_w), align = args[0], args[1], args[2]
    scale_h, scale_w = (args[3], args[4]) if len(args) > 3 else (None, None)
    if out_w != 1 and not (x.dtype == torch.uint8 and x.shape[1] <= 4):
        return aten._upsample_bilinear2d_aa(*args)
    channels = x.shape[1]

    def width_pass(image: torch.Tensor, width: int, scale: float | None) -> torch.Tensor:
        pad = image.new_zeros(image.shape[0], 5, *image.shape[2:])
        padded = torch.cat([image, pad], dim=1)
        size = [image.shape[2], width]
        return aten._upsample_bilinear2d_aa(padded, size, align, None, scale)[:, :channels]

    wide = width_pass(x, out_w, scale_w)
    tall = width_pass(wide.transpose(2, 3).contiguous(), out_h, scale_h)
    return tall.transpose(2, 3).contiguous()


def spanned(in_size: int, out_size: int, align: bool, scale: float | None) -> torch.Tensor:
    """Which output positions have input under their filter span. A given scale can place a span
    past the input; ATen then reads the element past the end (undefined), Kiln writes 0. A dim
    whose size does not change is copied, whatever the scale."""
    if in_size == out_size:
        return torch.ones(out_size, dtype=torch.bool)
    if align:
        step = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    else:
        step = 1 / scale if scale is not None and scale > 0 else in_size / out_size
    support = max(step, 1.0)
    starts = [int(step * (i + 0.5) - support + 0.5) for i in range(out_size)]
    return torch.tensor([start < in_size for start in starts])


def check_aa(call_op: Any, args: tuple[Any, ...], out: torch.Tensor) -> None:
    # On the ATen backend libtorch's kernel runs: it must agree with torch, workarounds aside.
    direct = backend_of(call_op) == "aten"
    try:
        expected = aten._upsample_bilinear2d_aa(*args) if direct else reference(args)
    except RuntimeError:
        with pytest.raises(kiln.KilnError):
            call_op(NAME, *args, out=out)
        return
    actual = call_op(NAME, *args, out=out)
    assert actual is out
    x, (out_h, out_w), align = args[0], args[1], args[2]
    scale_h, scale_w = (args[3], args[4]) if len(args) > 3 else (None, None)
    rows = spanned(x.shape[2], out_h, align, scale_h)
    cols = spanned(x.shape[3], out_w, align, scale_w)
    undefined = ~(rows[:, None] & cols[None, :]).expand_as(actual)
    if is_portable(call_op):
        assert not actual[undefined].any()
    # Where ATen's value is undefined the comparison takes the backend's own.
    expected = torch.where(undefined, actual, expected)
    assert_same(actual, expected, atol=1e-5)


@SETTINGS
@given(data=st.data())
def test_upsample_aa_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = (
        data.draw(st.integers(0, 2)),
        data.draw(st.integers(1, 6)),
        data.draw(st.integers(1, 12)),
        data.draw(st.integers(1, 12)),
    )
    seed = data.draw(st.integers(0, 2**31 - 1))
    size = [data.draw(st.integers(1, 20)) for _ in range(2)]
    scales = data.draw(st.sampled_from([(None, None), (0.5, 2.0), (1.7, 0.3), (0.0, -1.0)]))
    special = dtype != torch.uint8 and data.draw(st.integers(0, 5)) == 0
    x = make_tensor(dtype, shape, seed, special=special)
    args = (x, size, data.draw(st.booleans()), *scales)
    sized = data.draw(st.booleans())
    check_aa(call_op, args, out_like(dtype, (*shape[:2], *size) if sized else None))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [[17, 230], [120, 45], [60, 60], [1, 1], [30, 1]])
def test_upsample_aa_large(call_op: Any, dtype: torch.dtype, size: list[int]) -> None:
    x = make_tensor(dtype, (2, 3, 60, 90), 5, magnitude=1.0)
    for align in (False, True):
        check_aa(call_op, (x, size, align), torch.empty(0, dtype=dtype))


def test_upsample_aa_width_one_is_right(call_op: Any) -> None:
    # The case ATen gets wrong (every row = row 0): a column of 3 values shrunk to 2.
    x = torch.tensor([1.0, 2.0, 3.0]).reshape(1, 1, 3, 1)
    actual = call_op(NAME, x, [2, 1], False, out=torch.empty(0))
    if is_portable(call_op):
        torch.testing.assert_close(actual, torch.tensor([1.375, 2.625]).reshape(1, 1, 2, 1))


ones = torch.ones


@pytest.mark.parametrize(
    "args",
    [
        (ones(1, 2, 5), [3, 3], False),  # 3-d
        (ones(1, 0, 5, 5), [3, 3], False),  # no channels
        (ones(1, 2, 5, 5), [0, 3], False),
        (ones(1, 2, 5, 5), [3], False),
        (ones(1, 2, 5, 5, dtype=torch.float16), [3, 3], False),
        (ones(1, 2, 5, 5, dtype=torch.bfloat16), [3, 3], False),
        (ones(1, 2, 5, 5, dtype=torch.int32), [3, 3], False),
    ],
)
def test_upsample_aa_refusals(call_op: Any, args: tuple[Any, ...]) -> None:
    check_op(call_op, NAME, OP, args, out=torch.empty(0, dtype=args[0].dtype))


def test_upsample_aa_refuses_other_out_dtype(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError):
        call_op(NAME, ones(1, 2, 5, 5), [3, 3], False, out=torch.empty(0, dtype=torch.float64))
