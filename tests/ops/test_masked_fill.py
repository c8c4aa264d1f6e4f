"""aten::masked_fill.Scalar_out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, is_portable
from strategies import (
    any_scalars,
    broadcastable_shapes,
    dtypes,
    make_tensor,
    out_tensors,
    scalars_for,
    tensors,
)

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
NAME = "aten::masked_fill.Scalar_out"


def portable_only(call_op: Any, match: str) -> str | None:
    """Kiln's own messages are checked on the portable backend; ATen mode has libtorch's."""
    return match if is_portable(call_op) else None


def check_masked_fill(
    call_op: Any, a: torch.Tensor, mask: torch.Tensor, value: Any, out: torch.Tensor
) -> None:
    check_op(call_op, NAME, aten.masked_fill.Scalar_out, (a, mask, value), out=out)


@SETTINGS
@given(data=st.data())
def test_masked_fill_matches_torch(call_op: Any, data: Any) -> None:
    self_shape, mask_shape = data.draw(broadcastable_shapes())
    a = data.draw(tensors(dtypes, self_shape))
    mask_dtype = torch.bool if data.draw(st.integers(0, 9)) else torch.uint8
    mask = data.draw(tensors(mask_dtype, mask_shape))
    value = data.draw(st.one_of(scalars_for(a.dtype), any_scalars))
    shape = tuple(torch.broadcast_shapes(a.shape, mask.shape))
    out = data.draw(out_tensors(a.dtype, shape))
    check_masked_fill(call_op, a, mask, value, out)


@pytest.mark.parametrize(
    "dtype", [torch.bool, torch.int8, torch.float16, torch.bfloat16, torch.float32, torch.float64]
)
def test_masked_fill_long_rows_of_every_width(call_op: Any, dtype: torch.dtype) -> None:
    # The mask (bytes) selects through bits of the element's width: a random mask over long rows
    # (the vector loop and its tail), a row mask broadcast over rows, and a single mask element.
    a = make_tensor(dtype, (3, 1000), 1, special=dtype.is_floating_point)
    value = True if dtype == torch.bool else -7
    out = torch.empty(0, dtype=dtype)
    for mask in [
        make_tensor(torch.bool, (3, 1000), 2),
        make_tensor(torch.bool, (1000,), 3),
        torch.tensor(True),
    ]:
        check_masked_fill(call_op, a, mask, value, out)


@pytest.mark.parametrize(
    ("a", "mask", "value", "match"),
    [
        (torch.ones(2, 3), torch.ones(3, dtype=torch.uint8), 1, "only supports boolean masks"),
        (torch.ones(2, 3), torch.ones(4, dtype=torch.bool), 1, "broadcast"),
        (torch.ones(3, dtype=torch.uint8), torch.ones(3, dtype=torch.bool), 300, "overflow"),
        (
            torch.ones(3, dtype=torch.int64),
            torch.ones(3, dtype=torch.bool),
            float("nan"),
            "overflow",
        ),
    ],
)
def test_masked_fill_errors(
    call_op: Any, a: torch.Tensor, mask: torch.Tensor, value: Any, match: str
) -> None:
    with pytest.raises(RuntimeError):
        aten.masked_fill.Scalar_out(a, mask, value, out=torch.empty(0, dtype=a.dtype))
    with pytest.raises(kiln.KilnError, match=portable_only(call_op, match)):
        call_op("aten::masked_fill.Scalar_out", a, mask, value, out=torch.empty(0, dtype=a.dtype))
