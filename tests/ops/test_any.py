"""aten::any.out, any.dims_out, any.all_out, all.out, all.dims_out and all.all_out against
torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import ALL_DTYPES, dtypes, make_tensor, out_like, shapes

import kiln

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
OUT_DTYPES = st.sampled_from([torch.bool, torch.bool, torch.uint8, torch.int32, torch.float32])


@st.composite
def sparse_tensors(draw: Any) -> torch.Tensor:
    """Tensors with many zeros (and sometimes NaN), so any and all both vary."""
    dtype = draw(dtypes)
    shape = draw(shapes(0, 4, 0, 5))
    a = make_tensor(dtype, shape, draw(st.integers(0, 2**31 - 1)), special=True, int_range=(-1, 1))
    if draw(st.booleans()):
        a = a * (make_tensor(torch.bool, shape, draw(st.integers(0, 99))).to(dtype))
    if draw(st.integers(0, 4)) == 0:
        a = torch.ones_like(a)
    return a


@pytest.mark.parametrize("op", ["any", "all"])
@SETTINGS
@given(data=st.data())
def test_any_all_match_torch(call_op: Any, op: str, data: Any) -> None:
    a = data.draw(sparse_tensors())
    packet = getattr(aten, op)
    out = out_like(data.draw(OUT_DTYPES), None)
    if out.dtype == torch.uint8 and a.is_floating_point():
        # A Byte result casts the input to Byte first; NaN and inf have no Byte value (the cast
        # is undefined in C++, and ATen's answer depends on the code path).
        a = a.nan_to_num(0.0, 0.0, 0.0)
    keepdim = data.draw(st.booleans())
    rank = max(a.dim(), 1)
    dim = data.draw(st.integers(-rank, rank - 1))
    names = {
        "any": ("aten::any.out", "aten::any.dims_out", "aten::any.all_out"),
        "all": ("aten::all.out", "aten::all.dims_out", "aten::all.all_out"),
    }[op]
    check_op(call_op, names[0], packet.out, (a, dim, keepdim), out=out)
    dims = data.draw(
        st.one_of(st.none(), st.lists(st.integers(-rank, rank - 1), unique=True, max_size=rank))
    )
    check_op(call_op, names[1], packet.dims_out, (a, dims, keepdim), out=out)
    check_op(call_op, names[2], packet.all_out, (a,), out=out)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_any_all_long(call_op: Any, dtype: torch.dtype) -> None:
    for shape, dims in [((3, 700), [1]), ((700, 3), [0]), ((5, 80, 3), [0, 2])]:
        base = make_tensor(dtype, shape, 8, int_range=(0, 1))
        for a in (base, torch.ones_like(base), torch.zeros_like(base)):
            for op in ("any", "all"):
                packet = getattr(aten, op)
                out = torch.empty(0, dtype=torch.bool)
                check_op(call_op, f"aten::{op}.dims_out", packet.dims_out, (a, dims), out=out)


@pytest.mark.parametrize("length", [0, 1, 7, 8, 9, 197])
@pytest.mark.parametrize("keepdim", [False, True])
def test_any_all_of_bool_rows(call_op: Any, length: int, keepdim: bool) -> None:
    # Bool rows over the last dim (attention's masked-row test) are scanned eight bytes at a
    # time: all-false and all-true rows, and rows with a single flipped element at every position.
    rows = [torch.zeros(length, dtype=torch.bool), torch.ones(length, dtype=torch.bool)]
    for i in range(length):
        one = torch.zeros(length, dtype=torch.bool)
        one[i] = True
        rows += [one, ~one]
    a = torch.stack(rows).reshape(2, len(rows) // 2, length)
    for op in ("any", "all"):
        packet = getattr(aten, op)
        out = torch.empty(0, dtype=torch.bool)
        check_op(call_op, f"aten::{op}.out", packet.out, (a, -1, keepdim), out=out)


def test_any_all_of_nothing(call_op: Any) -> None:
    a = torch.ones(2, 0)
    out = call_op("aten::any.out", a, 1, out=torch.empty(0, dtype=torch.bool))
    assert out.tolist() == [False, False]
    out = call_op("aten::all.out", a, 1, out=torch.empty(0, dtype=torch.bool))
    assert out.tolist() == [True, True]


def test_any_rejects_non_bool_out(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="any only supports bool tensor for result"):
        call_op("aten::any.all_out", torch.ones(3), out=torch.empty(0, dtype=torch.int32))


@pytest.mark.parametrize("op", ["any", "all"])
@pytest.mark.parametrize(
    "a",
    [
        torch.tensor(0.0626, dtype=torch.float16),
        torch.tensor([[256.0]]),
        torch.tensor([[0.5], [256.0], [0.0]]),
        torch.tensor([0.5, 3.0]),
    ],
    ids=["0-dim", "one-element", "column", "row"],
)
def test_any_all_byte_out_of_fractions(call_op: Any, op: str, a: torch.Tensor) -> None:
    # ATen casts to Byte before testing (0.5 and 256 are zero) except for a one-element input.
    packet = getattr(aten, op)
    out = torch.empty(0, dtype=torch.uint8)
    check_op(call_op, f"aten::{op}.all_out", packet.all_out, (a,), out=out)
    check_op(call_op, f"aten::{op}.out", packet.out, (a, -1, False), out=out)
