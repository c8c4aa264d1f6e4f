"""aten::masked_select.out and masked_scatter.out against torch: self broadcast with a bool mask,
the selected elements read out (masked_select) or filled from source (masked_scatter); outs are
resized to the data-dependent result."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
from strategies import broadcastable_shapes, dtypes, make_tensor, out_tensors, seeds, tensors

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
SELECT = "aten::masked_select.out"
SCATTER = "aten::masked_scatter.out"


def mask_of(data: Any, shape: tuple[int, ...]) -> torch.Tensor:
    mask = make_tensor(torch.bool, shape, data.draw(seeds))
    if data.draw(st.integers(0, 14)) == 0:
        mask = mask.to(data.draw(st.sampled_from([torch.uint8, torch.int32])))
    return mask


@SETTINGS
@given(data=st.data())
def test_masked_select_matches_torch(call_op: Any, data: Any) -> None:
    self_shape, mask_shape = data.draw(broadcastable_shapes())
    a = data.draw(tensors(dtypes, self_shape))
    mask = mask_of(data, mask_shape)
    out = data.draw(out_tensors(a.dtype, (0,)))
    check_op(call_op, SELECT, aten.masked_select.out, (a, mask), out=out)


@SETTINGS
@given(data=st.data())
def test_masked_scatter_matches_torch(call_op: Any, data: Any) -> None:
    self_shape, mask_shape = data.draw(broadcastable_shapes())
    a = data.draw(tensors(dtypes, self_shape))
    mask = mask_of(data, mask_shape)
    count = int(mask.bool().expand(torch.broadcast_shapes(self_shape, mask_shape)).sum())
    numel = max(count + data.draw(st.sampled_from([0, 0, 3, -1])), 0)
    shape = data.draw(st.sampled_from([(numel,), (1, numel)]))
    dtype = a.dtype if data.draw(st.integers(0, 9)) else data.draw(dtypes)
    source = make_tensor(dtype, shape, data.draw(seeds))
    out = data.draw(out_tensors(a.dtype, (0,)))
    check_op(call_op, SCATTER, aten.masked_scatter.out, (a, mask, source), out=out)


@pytest.mark.parametrize(
    ("op", "mask", "extra", "text"),
    [
        (SELECT, torch.ones(3, dtype=torch.uint8), (), "expected BoolTensor for mask"),
        (SELECT, torch.ones(2, 4, dtype=torch.bool), (), "are not broadcastable"),
        (SCATTER, torch.ones(3, dtype=torch.uint8), (torch.ones(6),), "only supports boolean"),
        (SCATTER, torch.ones(3, dtype=torch.bool), (torch.ones(5),), "source < number of ones"),
        (
            SCATTER,
            torch.ones(3, dtype=torch.bool),
            (torch.ones(6, dtype=torch.int64),),
            "same dtype",
        ),
    ],
)
def test_masked_refusals(
    call_op: Any, op: str, mask: torch.Tensor, extra: tuple[Any, ...], text: str
) -> None:
    self = torch.zeros(2, 3)
    torch_op = aten.masked_select if op == SELECT else aten.masked_scatter
    with pytest.raises(RuntimeError):
        torch_op(self, mask, *extra)
    with raises(call_op, text):
        call_op(op, self, mask, *extra, out=torch.empty(0))


def test_masked_select_out_dtype_must_match(call_op: Any) -> None:
    mask = torch.tensor([True, False])
    with raises(call_op, "self and result must have the same scalar type"):
        call_op(SELECT, torch.ones(2), mask, out=torch.empty(0, dtype=torch.float64))
