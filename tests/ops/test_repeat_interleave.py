"""aten::repeat_interleave.Tensor_out against torch: index i written repeats[i] times, an out of
repeats' dtype resized to the data-dependent total, output_size checked against it."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, is_portable, raises

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
REPEAT_INTERLEAVE = "aten::repeat_interleave.Tensor_out"


@SETTINGS
@given(data=st.data())
def test_repeat_interleave_matches_torch(call_op: Any, data: Any) -> None:
    counts = data.draw(st.lists(st.integers(0, 6), max_size=12))
    if counts and data.draw(st.integers(0, 9)) == 0:
        counts[data.draw(st.integers(0, len(counts) - 1))] = -1
    dtype = data.draw(st.sampled_from([torch.int64, torch.int32]))
    repeats = torch.tensor(counts, dtype=dtype)
    total = sum(counts)
    output_size = data.draw(st.sampled_from([None, None, total, total + 1]))
    if min(counts, default=0) < 0:
        output_size = None  # torch skips its negative check then and writes out of bounds
    out_dtype = dtype if data.draw(st.integers(0, 9)) else torch.int32
    out = torch.empty(data.draw(st.sampled_from([0, max(total, 0)])), dtype=out_dtype)
    check_op(
        call_op,
        REPEAT_INTERLEAVE,
        aten.repeat_interleave.Tensor_out,
        (repeats,),
        {"output_size": output_size},
        out=out,
    )


def test_repeat_interleave_negative_repeats_with_output_size(call_op: Any) -> None:
    # torch checks for negative repeats only without output_size (with it, it corrupts memory).
    if not is_portable(call_op):
        pytest.skip("libtorch's kernel writes out of bounds here; only Kiln's kernels are checked")
    with raises(call_op, "repeats can not be negative"):
        call_op(
            REPEAT_INTERLEAVE,
            torch.tensor([-1, 5]),
            output_size=4,
            out=torch.empty(0, dtype=torch.int64),
        )


@pytest.mark.parametrize(
    ("repeats", "output_size", "text"),
    [
        (torch.tensor(3), None, "only accept 1D vector as repeat"),
        (torch.tensor([[3]]), None, "only accept 1D vector as repeat"),
        (torch.tensor([1, -2]), None, "repeats can not be negative"),
        (torch.tensor([1, 2]), 4, "allocated size does not match required size"),
        (torch.tensor([3.0]), None, "pass an Int or Long tensor"),
        (torch.tensor([3], dtype=torch.int16), None, "pass an Int or Long tensor"),
    ],
)
def test_repeat_interleave_refusals(
    call_op: Any, repeats: torch.Tensor, output_size: int | None, text: str
) -> None:
    out = torch.empty(0, dtype=repeats.dtype)
    with pytest.raises((RuntimeError, NotImplementedError)):
        aten.repeat_interleave.Tensor_out(repeats, output_size=output_size, out=out.clone())
    with raises(call_op, text):
        call_op(REPEAT_INTERLEAVE, repeats, output_size=output_size, out=out)
