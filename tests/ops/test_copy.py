"""aten::copy_ (in place) and aten::copy.out against torch: src broadcast to self's shape and
converted to its dtype, written into self or into out (which takes self's shape and dtype).

A program that mutates a registered buffer ends with copy_ writing the buffer back. kiln.call_op
runs it in place: it writes self and returns it.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, check_op, raises
from strategies import (
    ALL_DTYPES,
    dtypes,
    make_tensor,
    out_tensors,
    seeds,
    shapes,
    unbroadcastable_shapes,
)

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

COPY = "aten::copy_"


def check_copy(call_op: Any, self: torch.Tensor, src: torch.Tensor, **kwargs: Any) -> None:
    """The backend writes what torch's copy_ writes into self, returns self and leaves src."""
    expected = self.clone(memory_format=torch.preserve_format).copy_(src)
    before = src.clone()
    result = call_op(COPY, self, src, **kwargs)
    assert result is self
    assert_same(result, expected)
    torch.testing.assert_close(src, before, rtol=0, atol=0, equal_nan=True)


@st.composite
def broadcast_to(draw: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to `shape`: some leading dims dropped, some sides set to 1."""
    kept = list(shape[draw(st.integers(0, len(shape))) :])
    return tuple(1 if draw(st.booleans()) else side for side in kept)


def values(draw: Any, dtype: torch.dtype, shape: tuple[int, ...], into: torch.dtype) -> Any:
    # Float values out of an integer's range (and nan) convert in a platform-defined way in C++.
    to_int = dtype.is_floating_point and not into.is_floating_point and into != torch.bool
    return make_tensor(
        dtype,
        shape,
        draw(seeds),
        special=not to_int and draw(st.booleans()),
        magnitude=20.0 if to_int else 1000.0,
    )


@SETTINGS
@given(data=st.data())
def test_copy_matches_torch(call_op: Any, data: Any) -> None:
    shape = data.draw(st.one_of(shapes(0, 3, 0, 5), shapes(4, 4, 0, 4)))
    self_dtype, src_dtype = data.draw(dtypes), data.draw(dtypes)
    self = make_tensor(self_dtype, shape, data.draw(seeds))
    src = values(data.draw, src_dtype, data.draw(broadcast_to(shape)), self_dtype)
    # Both may come channels last (rank 4): copy_ writes self in its own layout.
    if self.dim() == 4 and data.draw(st.booleans()):
        self = self.contiguous(memory_format=torch.channels_last)
    if src.dim() == 4 and data.draw(st.booleans()):
        src = src.contiguous(memory_format=torch.channels_last)
    check_copy(call_op, self, src, non_blocking=data.draw(st.booleans()))


@pytest.mark.parametrize("src_dtype", ALL_DTYPES)
@pytest.mark.parametrize("self_dtype", ALL_DTYPES)
def test_copy_dtype_pairs(call_op: Any, self_dtype: torch.dtype, src_dtype: torch.dtype) -> None:
    src = make_tensor(src_dtype, (3, 700), seed=1, magnitude=20.0)
    check_copy(call_op, make_tensor(self_dtype, (3, 700), seed=2), src)
    # A broadcast row, converted.
    check_copy(call_op, make_tensor(self_dtype, (4, 3, 700), seed=3), src[:1])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool])
def test_copy_between_layouts(call_op: Any, dtype: torch.dtype) -> None:
    src = make_tensor(dtype, (2, 5, 17, 19), seed=4)
    channels_last = torch.empty(2, 5, 17, 19, dtype=dtype, memory_format=torch.channels_last)
    check_copy(call_op, channels_last, src)
    check_copy(call_op, torch.empty(2, 5, 17, 19, dtype=dtype), src.to(torch.float64))
    check_copy(call_op, channels_last, src[:, :, :1].contiguous(memory_format=torch.channels_last))


@pytest.mark.parametrize(
    ("shape", "src_shape"), [((), ()), ((3,), ()), ((0, 3), (3,)), ((2, 0), (1,)), ((0,), (0,))]
)
def test_copy_0_dim_and_empty(
    call_op: Any, shape: tuple[int, ...], src_shape: tuple[int, ...]
) -> None:
    check_copy(call_op, torch.zeros(shape), make_tensor(torch.float64, src_shape, seed=5))


def test_copy_onto_itself_changes_nothing(call_op: Any) -> None:
    self = make_tensor(torch.float32, (3, 4), seed=6)
    expected = self.clone()
    assert call_op(COPY, self, self) is self
    assert_same(self, expected)


@SETTINGS
@given(shapes=unbroadcastable_shapes())
def test_copy_unbroadcastable_src_is_refused(call_op: Any, shapes: Any) -> None:
    self, src = torch.zeros(shapes[0]), torch.ones(shapes[1])
    with pytest.raises(RuntimeError):
        self.clone().copy_(src)
    with raises(call_op, r"aten::copy_: (the size of src|src of shape .* has more dims)"):
        call_op(COPY, self, src)


@pytest.mark.parametrize(
    ("shape", "src_shape", "text"),
    [
        ((3,), (2, 3), r"src of shape \[2, 3\] has more dims than self of shape \[3\]"),
        ((), (1,), "has more dims than self"),
        ((2, 3), (4,), r"the size of src \(4\) must match the size of self \(3\) at non-singleton"),
    ],
)
def test_copy_src_must_broadcast_to_self(
    call_op: Any, shape: tuple[int, ...], src_shape: tuple[int, ...], text: str
) -> None:
    with pytest.raises(RuntimeError):
        torch.zeros(shape).copy_(torch.ones(src_shape))
    with raises(call_op, text):
        call_op(COPY, torch.zeros(shape), torch.ones(src_shape))


def test_copy_from_overlapping_memory_is_refused(call_op: Any) -> None:
    flat = torch.arange(6.0)
    with pytest.raises(RuntimeError, match="single memory location"):
        flat[1:].copy_(flat[:-1])
    with raises(call_op, "some elements of src and self refer to a single memory location"):
        call_op(COPY, flat[1:], flat[:-1])


COPY_OUT = "aten::copy.out"


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_copy_out_matches_torch(call_op: Any, data: Any) -> None:
    shape = data.draw(shapes(0, 4, 0, 4))
    self_dtype, src_dtype = data.draw(dtypes), data.draw(dtypes)
    self = make_tensor(self_dtype, shape, data.draw(seeds))
    src = values(data.draw, src_dtype, data.draw(broadcast_to(shape)), self_dtype)
    # Exactly self's dtype, as torch's out variant wants; sometimes another, which both refuse.
    out = data.draw(out_tensors(self_dtype, shape))
    non_blocking = data.draw(st.booleans())
    check_op(call_op, COPY_OUT, torch.ops.aten.copy.out, (self, src, non_blocking), out=out)


def test_copy_out_long_and_refusals(call_op: Any) -> None:
    copy_out = torch.ops.aten.copy.out
    src = make_tensor(torch.float64, (1, 700), seed=7, magnitude=20.0)
    for dtype in (torch.float32, torch.int16, torch.bfloat16):
        self = torch.empty(3, 700, dtype=dtype)
        check_op(call_op, COPY_OUT, copy_out, (self, src, False), out=self.new_empty(0))
    with raises(call_op, r"the size of src \(4\) must match the size of self \(3\)"):
        call_op(COPY_OUT, torch.zeros(2, 3), torch.ones(4), False, out=torch.empty(0))
    with raises(call_op, "(?i)Expected out tensor to have dtype Float"):
        call_op(COPY_OUT, torch.zeros(2, 3), torch.ones(3), False, out=torch.empty(0).double())
