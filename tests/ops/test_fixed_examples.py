"""One fixed, valid example per op whose property tests mostly draw inputs torch refuses, or pick
the op at random among several, or whose fixed tests compare with torch.equal: every session then
checks these ops against torch on every backend, whatever the examples Hypothesis draws
(test_kernel_coverage.py counts on it)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from op_compare import assert_same, check_op
from strategies import make_tensor

aten = torch.ops.aten

FLOATS = make_tensor(torch.float32, (3, 5), 1)
INTS = make_tensor(torch.int32, (3, 5), 2, int_range=(-50, 50))
INDEX = torch.tensor([[0, 2, 1, 0, 2], [1, 1, 0, 2, 0]])

# (op, torch's out variant, arguments, keyword arguments, dtype of the out tensor)
SINGLE_OUT = [
    ("aten::tril.out", aten.tril.out, (FLOATS, 1), {}, torch.float32),
    ("aten::triu.out", aten.triu.out, (INTS, -1), {}, torch.int32),
    ("aten::narrow_copy.out", aten.narrow_copy.out, (FLOATS, 1, 1, 3), {}, torch.float32),
    ("aten::select_copy.int_out", aten.select_copy.int_out, (INTS, 0, -1), {}, torch.int32),
    (
        "aten::slice_copy.Tensor_out",
        aten.slice_copy.Tensor_out,
        (FLOATS, 1, 1, 5, 2),
        {},
        torch.float32,
    ),
    (
        "aten::index_select.out",
        aten.index_select.out,
        (INTS, 1, torch.tensor([4, 0, 4])),
        {},
        torch.int32,
    ),
    ("aten::leaky_relu.out", aten.leaky_relu.out, (FLOATS, 0.2), {}, torch.float32),
    ("aten::alias_copy.out", aten.alias_copy.out, (FLOATS,), {}, torch.float32),
    ("aten::detach_copy.out", aten.detach_copy.out, (INTS,), {}, torch.int32),
    (
        "aten::round.decimals_out",
        aten.round.decimals_out,
        (FLOATS * 10,),
        {"decimals": 1},
        torch.float32,
    ),
    (
        "aten::index_put.out",
        aten.index_put.out,
        (FLOATS, [torch.tensor([2, 0])], make_tensor(torch.float32, (2, 5), 5), False),
        {},
        torch.float32,
    ),
    (
        "aten::scatter.reduce_out",
        aten.scatter.reduce_out,
        (FLOATS, 0, INDEX, make_tensor(torch.float32, (2, 5), 3)),
        {"reduce": "add"},
        torch.float32,
    ),
    (
        "aten::scatter.value_reduce_out",
        aten.scatter.value_reduce_out,
        (INTS, 0, INDEX, 3),
        {"reduce": "multiply"},
        torch.int32,
    ),
]


@pytest.mark.parametrize(
    ("name", "torch_op", "args", "kwargs", "dtype"),
    SINGLE_OUT,
    ids=[entry[0] for entry in SINGLE_OUT],
)
def test_fixed_example_matches_torch(
    call_op: Any, name: str, torch_op: Any, args: tuple, kwargs: dict, dtype: torch.dtype
) -> None:
    expected = check_op(call_op, name, torch_op, args, kwargs, out=torch.empty(0, dtype=dtype))
    assert expected is not None and expected.numel() > 0, f"{name}: torch refused the example"


def test_sort_stable_fixed_example_matches_torch(call_op: Any) -> None:
    a = make_tensor(torch.int64, (4, 6), 4, int_range=(-2, 2))  # many ties: stability shows
    values, indices = torch.empty(0, dtype=torch.int64), torch.empty(0, dtype=torch.int64)
    expected = aten.sort.values_stable(a, stable=True, dim=1, values=values, indices=indices)
    got = call_op(
        "aten::sort.values_stable",
        a,
        stable=True,
        dim=1,
        out=(torch.empty(0, dtype=torch.int64), torch.empty(0, dtype=torch.int64)),
    )
    assert_same(got[0], expected[0])
    assert_same(got[1], expected[1])


def test_split_copy_fixed_example_matches_torch(call_op: Any) -> None:
    expected = torch.split(FLOATS, 2, 1)
    outs = [torch.empty(e.shape) for e in expected]
    call_op("aten::split_copy.Tensor_out", FLOATS, 2, 1, out=(outs,))
    for got, want in zip(outs, expected, strict=True):
        assert_same(got, want.contiguous())
