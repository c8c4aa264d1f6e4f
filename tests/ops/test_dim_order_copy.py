"""dim_order_ops::_to_dim_order_copy.out and _clone_dim_order.out against torch.

ExecuTorch's exporter writes these for `x.to(...)` and `x.clone()`: the layout comes as a dim order
(None keeps self's), and torch's reference is the op with the matching memory format
(aten._to_copy / aten.clone; preserve_format for None), as ExecuTorch defines them. Kiln views
contiguous and channels-last torch tensors (dim orders [0, 1, ...], [0, 2, 3, 1], [0, 2, 3, 4, 1]).
"""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, raises
from strategies import ALL_DTYPES, dtypes, make_tensor, seeds, shapes

aten = torch.ops.aten
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TO = "dim_order_ops::_to_dim_order_copy.out"
CLONE = "dim_order_ops::_clone_dim_order.out"

# The memory format of each dim order the tests use, by rank.
CHANNELS_LAST = {4: (0, 2, 3, 1), 5: (0, 2, 3, 4, 1)}
FORMATS = {4: torch.channels_last, 5: torch.channels_last_3d}


def memory_format(dim_order: tuple[int, ...] | None) -> torch.memory_format:
    """The torch memory format a dim order names (ExecuTorch's get_memory_format)."""
    if dim_order is None:
        return torch.preserve_format
    if dim_order == tuple(range(len(dim_order))):
        return torch.contiguous_format
    return FORMATS[len(dim_order)]


def reference(
    op: str, self: torch.Tensor, dtype: torch.dtype, dim_order: tuple[int, ...] | None
) -> torch.Tensor:
    """torch's result, in the layout torch gives it."""
    fmt = memory_format(dim_order)
    if op == CLONE:
        return aten.clone(self, memory_format=fmt)
    return aten._to_copy(self, dtype=dtype, memory_format=fmt)


def laid_out(tensor: torch.Tensor, channels_last: bool) -> torch.Tensor:
    """`tensor` in the channels-last format of its rank, or as it is."""
    return tensor.contiguous(memory_format=FORMATS[tensor.dim()]) if channels_last else tensor


def assert_same_layout(actual: torch.Tensor, expected: torch.Tensor) -> None:
    """Same strides on every dim that has more than one element (the others address nothing; an
    empty tensor has no layout)."""
    if expected.numel() == 0:
        return
    for d, size in enumerate(expected.shape):
        if size > 1:
            assert actual.stride(d) == expected.stride(d), (actual.stride(), expected.stride())


def check_dim_order_copy(
    call_op: Any,
    op: str,
    self: torch.Tensor,
    out: torch.Tensor,
    dim_order: tuple[int, ...] | None,
) -> None:
    """The backend writes torch's values, in torch's layout, into `out` and returns it."""
    expected = reference(op, self, out.dtype, dim_order)
    before = self.clone()
    arg = None if dim_order is None else list(dim_order)
    result = call_op(op, self, non_blocking=False, dim_order=arg, out=out)
    assert result is out
    assert_same(result, expected)
    assert_same_layout(result, expected)
    torch.testing.assert_close(self, before, rtol=0, atol=0, equal_nan=True)


@st.composite
def cases(draw: Any, op: str) -> tuple[torch.Tensor, torch.dtype, tuple[int, ...] | None]:
    """self (contiguous or channels last), the out dtype and a dim_order argument."""
    shape = draw(st.one_of(shapes(0, 3, 0, 4), shapes(4, 5, 0, 4)))
    src_dtype = draw(dtypes)
    out_dtype = src_dtype if op == CLONE else draw(dtypes)
    # Float values out of an integer's range (and nan) convert in a platform-defined way in C++.
    to_int = out_dtype != src_dtype and not out_dtype.is_floating_point
    self = make_tensor(
        src_dtype,
        shape,
        draw(seeds),
        special=not to_int and draw(st.booleans()),
        magnitude=20.0 if to_int else 1000.0,
    )
    rank = len(shape)
    self = laid_out(self, rank in FORMATS and draw(st.booleans()))
    orders = [None, tuple(range(rank))] + ([CHANNELS_LAST[rank]] if rank in FORMATS else [])
    return self, out_dtype, draw(st.sampled_from(orders))


@SETTINGS
@given(data=st.data(), op=st.sampled_from([TO, CLONE]))
def test_dim_order_copy_matches_torch(call_op: Any, data: Any, op: str) -> None:
    self, out_dtype, dim_order = data.draw(cases(op))
    expected = reference(op, self, out_dtype, dim_order)
    # out comes in the layout the program's memory plan gives it: torch's result's. A contiguous
    # out may also come empty, for the kernel to resize.
    if expected.is_contiguous() and data.draw(st.booleans()):
        out = torch.empty(0, dtype=out_dtype)
    else:
        out = torch.empty_like(expected, dtype=out_dtype)
    check_dim_order_copy(call_op, op, self, out, dim_order)


@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ALL_DTYPES)
@pytest.mark.parametrize(
    ("src_layout", "dim_order"),
    [("contiguous", (0, 2, 3, 1)), ("channels_last", (0, 1, 2, 3)), ("channels_last", None)],
)
def test_to_dim_order_copy_dtype_pairs_across_layouts(
    call_op: Any, src: torch.dtype, dst: torch.dtype, src_layout: str, dim_order: Any
) -> None:
    # Rows long enough for the strided conversion to take several chunks and a tail.
    self = make_tensor(src, (2, 3, 5, 300), seed=1, magnitude=20.0)
    self = laid_out(self, src_layout == "channels_last")
    out = torch.empty_like(reference(TO, self, dst, dim_order), dtype=dst)
    check_dim_order_copy(call_op, TO, self, out, dim_order)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32])
@pytest.mark.parametrize("op", [TO, CLONE])
def test_clone_dim_order_changes_layout(call_op: Any, dtype: torch.dtype, op: str) -> None:
    self = make_tensor(dtype, (3, 4, 17, 19), seed=2)
    for src_cl, dim_order in [(False, (0, 2, 3, 1)), (True, (0, 1, 2, 3)), (True, None)]:
        source = laid_out(self, src_cl)
        out = torch.empty_like(reference(op, source, dtype, dim_order))
        check_dim_order_copy(call_op, op, source, out, dim_order)


@pytest.mark.parametrize(
    ("shape", "dim_order"),
    [((), None), ((), ()), ((0,), (0,)), ((2, 0, 3, 3), (0, 2, 3, 1)), ((0, 3, 2, 2), None)],
)
@pytest.mark.parametrize("op", [TO, CLONE])
def test_dim_order_copy_0_dim_and_empty(
    call_op: Any, shape: tuple[int, ...], dim_order: Any, op: str
) -> None:
    self = make_tensor(torch.float32, shape, seed=3)
    out = torch.empty_like(reference(op, self, torch.float32, dim_order))
    check_dim_order_copy(call_op, op, self, out, dim_order)


def test_dim_order_copy_of_a_5d_tensor_to_channels_last_3d(call_op: Any) -> None:
    self = make_tensor(torch.float64, (2, 3, 4, 5, 6), seed=4)
    out = torch.empty_like(self, memory_format=torch.channels_last_3d)
    check_dim_order_copy(call_op, TO, self, out, CHANNELS_LAST[5])


def test_dim_order_that_names_the_same_layout_is_accepted(call_op: Any) -> None:
    # With one channel, channels last and contiguous lay the elements out alike.
    self = make_tensor(torch.float32, (2, 1, 3, 4), seed=5)
    out = torch.empty(2, 1, 3, 4)
    check_dim_order_copy(call_op, TO, self, out, CHANNELS_LAST[4])


@pytest.mark.parametrize(
    ("dim_order", "text"),
    [
        ([0, 1, 2], "dim_order \\[0, 1, 2\\] has 3 entries, but self has 4 dims"),
        ([0, 1, 2, 3, 4], "has 5 entries, but self has 4 dims"),
        ([0, 0, 1, 2], "is not a permutation of the dims 0..3 of self"),
        ([0, 1, 2, 4], "is not a permutation"),
        ([-1, 0, 1, 2], "is not a permutation"),
    ],
)
@pytest.mark.parametrize("op", [TO, CLONE])
def test_bad_dim_order_is_refused(call_op: Any, dim_order: list[int], text: str, op: str) -> None:
    with raises(call_op, text):
        call_op(op, torch.ones(2, 3, 4, 5), dim_order=dim_order, out=torch.empty(2, 3, 4, 5))


@pytest.mark.parametrize("op", [TO, CLONE])
def test_dim_order_that_out_lacks_is_refused(call_op: Any, op: str) -> None:
    self = torch.ones(2, 3, 4, 5)
    with raises(call_op, r"dim_order \[0, 2, 3, 1\] asks for a layout out does not have"):
        call_op(op, self, dim_order=[0, 2, 3, 1], out=torch.empty(2, 3, 4, 5))
    out = torch.empty(2, 3, 4, 5, memory_format=torch.channels_last)
    with raises(call_op, r"out has dim order \[0, 2, 3, 1\]"):
        call_op(op, self, dim_order=[0, 1, 2, 3], out=out)
    # None keeps self's layout.
    with raises(call_op, r"dim_order is None, which keeps self's dim order \[0, 1, 2, 3\]"):
        call_op(op, self, out=out)
    # A resized out keeps its own dim order.
    with raises(call_op, "asks for a layout out does not have"):
        call_op(op, self, dim_order=[0, 2, 3, 1], out=torch.empty(0))


def test_clone_dim_order_out_dtype_must_match(call_op: Any) -> None:
    with raises(call_op, "Expected out tensor to have dtype Float, but got Long"):
        call_op(CLONE, torch.ones(2), out=torch.empty(2, dtype=torch.int64))


def test_resized_out_keeps_its_dim_order(call_op: Any) -> None:
    self = make_tensor(torch.float32, (2, 3, 4, 5), seed=6)
    out = torch.empty(1, 3, 1, 2, memory_format=torch.channels_last)
    check_dim_order_copy(call_op, TO, self, out, CHANNELS_LAST[4])
    assert out.shape == (2, 3, 4, 5) and out.is_contiguous(memory_format=torch.channels_last)
