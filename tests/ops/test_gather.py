"""aten::gather.out, aten::scatter (src, value and their reduce overloads) and aten::scatter_add.out
against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from op_compare import check_op, is_portable, magnitude
from strategies import dtypes, make_tensor, out_tensors, scalars_for, seeds, shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def portable_only(call_op: Any, match: str) -> str | None:
    """Kiln's own messages are checked on the portable backend; ATen mode has libtorch's."""
    return match if is_portable(call_op) else None


@st.composite
def gather_args(draw: Any) -> tuple[torch.Tensor, int, torch.Tensor]:
    """self, dim and an index no larger than self apart from dim (sometimes larger, of another
    rank, out of range or of another dtype, for torch to reject)."""
    a = draw(tensors(dtypes, shapes(0, 4)))
    rank = max(a.dim(), 1)
    dim = draw(st.integers(-rank, rank - 1))
    sizes = list(a.shape) if a.dim() else [1]
    index_shape = [draw(st.integers(0, s)) for s in sizes]
    index_shape[dim] = draw(st.integers(0, 4))
    if draw(st.integers(0, 9)) == 0:
        index_shape[draw(st.integers(0, rank - 1))] += 1
    if a.dim() == 0 and draw(st.booleans()):
        index_shape = []
    if draw(st.integers(0, 14)) == 0:
        index_shape = index_shape + [1]
    size = sizes[dim]
    high = size - 1 if draw(st.integers(0, 9)) else size + 1
    low = 0 if draw(st.integers(0, 9)) else -2
    index = make_tensor(
        torch.int64, tuple(index_shape), draw(seeds), int_range=(low, max(high, low))
    )
    dtype = draw(st.sampled_from([torch.int64, torch.int64, torch.int32, torch.int16]))
    return a, dim, index.to(dtype)


@SETTINGS
@given(data=st.data())
def test_gather_matches_torch(call_op: Any, data: Any) -> None:
    a, dim, index = data.draw(gather_args())
    out = data.draw(out_tensors(a.dtype, tuple(index.shape)))
    check_op(call_op, "aten::gather.out", aten.gather.out, (a, dim, index), out=out)


@SETTINGS
@given(data=st.data())
def test_scatter_src_matches_torch(call_op: Any, data: Any) -> None:
    a, dim, index = data.draw(gather_args())
    src_shape = tuple(s + data.draw(st.integers(0, 1)) for s in index.shape)
    if data.draw(st.integers(0, 9)) == 0:
        src_shape = tuple(max(s - 1, 0) for s in src_shape)
    src_dtype = a.dtype if data.draw(st.integers(0, 9)) else data.draw(dtypes)
    src = data.draw(tensors(src_dtype, src_shape))
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, "aten::scatter.src_out", aten.scatter.src_out, (a, dim, index, src), out=out)


@SETTINGS
@given(data=st.data())
def test_scatter_value_matches_torch(call_op: Any, data: Any) -> None:
    a, dim, index = data.draw(gather_args())
    value = data.draw(st.one_of(scalars_for(a.dtype), st.integers(-400, 400)))
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(
        call_op, "aten::scatter.value_out", aten.scatter.value_out, (a, dim, index, value), out=out
    )


@SETTINGS
@given(data=st.data())
def test_scatter_reduce_matches_torch(call_op: Any, data: Any) -> None:
    """add/multiply reductions (duplicates combine in index order, as in ATen's serial loop)."""
    a, dim, index = data.draw(gather_args())
    reduce = data.draw(st.sampled_from(["add", "multiply", "add", "multiply", "mean"]))
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    if data.draw(st.booleans()):
        src = data.draw(tensors(a.dtype, tuple(index.shape), magnitude=2.0))
        if src.dtype.is_floating_point:
            src = src.nan_to_num(0.0, 0.0, 0.0)  # inf * 0 order would matter
        name, op, args = "aten::scatter.reduce_out", aten.scatter.reduce_out, (a, dim, index, src)
    else:
        value = data.draw(st.one_of(scalars_for(a.dtype), st.integers(-400, 400)))
        name, op = "aten::scatter.value_reduce_out", aten.scatter.value_reduce_out
        args = (a, dim, index, value)
    atol = 0.0
    if a.dtype.is_floating_point:
        # Sums round once per element where ATen may differ in order; Half/BFloat16 products
        # of several duplicates round at each step.
        if reduce == "multiply" and a.dtype in (torch.float16, torch.bfloat16):
            assume(index.numel() == 0)
        atol = (
            8 * torch.finfo(a.dtype).eps * (magnitude(a) + 8 * magnitude(*args[3:]) * index.numel())
        )
    check_op(call_op, name, op, args, {"reduce": reduce}, out=out, atol=atol)


@SETTINGS
@given(data=st.data())
def test_scatter_add_matches_torch(call_op: Any, data: Any) -> None:
    a, dim, index = data.draw(gather_args())
    src_shape = tuple(s + data.draw(st.integers(0, 1)) for s in index.shape)
    src_dtype = a.dtype if data.draw(st.integers(0, 9)) else data.draw(dtypes)
    src = data.draw(tensors(src_dtype, src_shape))
    if src.dtype.is_floating_point:
        src = src.nan_to_num(0.0, 0.0, 0.0)
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    atol = 0.0
    if a.dtype.is_floating_point:
        atol = 8 * torch.finfo(a.dtype).eps * float(src.double().abs().sum() + 1)
    check_op(
        call_op,
        "aten::scatter_add.out",
        aten.scatter_add.out,
        (a, dim, index, src),
        out=out,
        atol=atol,
    )


def test_scatter_duplicate_positions_keep_the_last_write(call_op: Any) -> None:
    """Like ATen's serial CPU loop: along the scatter dim, the last duplicate wins."""
    a = torch.zeros(2, 3)
    index = torch.tensor([[1, 1, 1]])
    src = torch.tensor([[5.0, 6.0, 7.0]])
    out = call_op("aten::scatter.src_out", a, 1, index, src, out=torch.empty(0))
    assert out.tolist() == [[0.0, 7.0, 0.0], [0.0, 0.0, 0.0]]


@pytest.mark.parametrize(
    ("op", "args", "match"),
    [
        (
            "aten::gather.out",
            (torch.ones(2, 3), 1, torch.tensor([[3]])),
            "index 3 is out of bounds",
        ),
        ("aten::gather.out", (torch.ones(2, 3), 1, torch.tensor([[-1]])), "index -1 is out"),
        ("aten::gather.out", (torch.ones(2, 3), 1, torch.tensor([1])), "same number of dimensions"),
        ("aten::gather.out", (torch.ones(2, 3), 1, torch.tensor([[1]] * 3)), "no larger than self"),
        ("aten::gather.out", (torch.ones(2, 3), 1, torch.tensor([[1.0]])), "int32 or int64"),
        (
            "aten::scatter.src_out",
            (torch.ones(2, 3), 1, torch.tensor([[3]]), torch.ones(1, 1)),
            "index 3 is out of bounds",
        ),
        (
            "aten::scatter.src_out",
            (torch.ones(2, 3), 1, torch.tensor([[1, 2]]), torch.ones(1, 1)),
            "no larger size than src",
        ),
        (
            "aten::scatter.src_out",
            (torch.ones(2, 3), 1, torch.tensor([[1]]), torch.ones(1, 1, dtype=torch.float64)),
            "self.dtype to be equal to src.dtype",
        ),
        (
            "aten::scatter.value_out",
            (torch.ones(2, 3, dtype=torch.uint8), 1, torch.tensor([[1]]), 300),
            "without overflow",
        ),
        ("aten::scatter.value_out", (torch.ones(2, 3), 2, torch.tensor([[1]]), 1), "out of range"),
        (
            "aten::scatter_add.out",
            (torch.ones(2, 3), 0, torch.tensor([[2]]), torch.ones(1, 1)),
            "index 2 is out of bounds",
        ),
    ],
)
def test_gather_scatter_errors(call_op: Any, op: str, args: tuple, match: str) -> None:
    packet = getattr(aten, op.removeprefix("aten::").split(".")[0])
    overload = getattr(packet, op.split(".")[1])
    with pytest.raises((RuntimeError, IndexError)):
        overload(*args, out=torch.empty(0, dtype=args[0].dtype))
    with pytest.raises(kiln.KilnError, match=portable_only(call_op, match)):
        call_op(op, *args, out=torch.empty(0, dtype=args[0].dtype))
