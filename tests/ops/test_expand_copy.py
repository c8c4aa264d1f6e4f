"""aten::expand_copy.out and repeat.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import out_tensors, shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


@st.composite
def expand_sizes(draw: Any, shape: tuple) -> list[int]:
    """Sizes to expand `shape` to: leading new dims, -1 keeps, 1s broadcast; sometimes invalid."""
    sizes = [draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2)))]
    for side in shape:
        choice = draw(st.integers(0, 9))
        if choice < 3:
            sizes.append(-1)
        elif side == 1 and choice < 8:
            sizes.append(draw(st.integers(0, 4)))
        elif choice == 9:
            sizes.append(draw(st.integers(-2, 5)))  # often a mismatch torch rejects
        else:
            sizes.append(side)
    if draw(st.integers(0, 9)) == 0 and sizes:
        sizes[0] = -1  # -1 in a new leading dim (an error when it is one)
    return sizes


@SETTINGS
@given(data=st.data())
def test_expand_copy_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(
        tensors(
            shape=shapes(0, 4, 0, 3).map(
                lambda s: tuple(min(x, 1) if i % 2 else x for i, x in enumerate(s))
            )
        )
    )
    size = data.draw(expand_sizes(tuple(a.shape)))
    implicit = data.draw(st.booleans())
    try:
        shape = tuple(a.expand(size).shape)
    except RuntimeError:
        shape = None
    if shape is not None and min(shape, default=0) < 0:
        shape = None  # the view accepts a -1 in a new leading dim; the copy rejects it
    out = data.draw(out_tensors(a.dtype, shape))
    check_op(
        call_op,
        "aten::expand_copy.out",
        aten.expand_copy.out,
        (a, size),
        {"implicit": implicit},
        out=out,
    )


def test_expand_copy_errors(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="must be greater or equal"):
        call_op("aten::expand_copy.out", torch.ones(2, 3), [3], out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match="must match the existing size"):
        call_op("aten::expand_copy.out", torch.ones(2, 3), [2, 4], out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match="leading, non-existing dimension"):
        call_op("aten::expand_copy.out", torch.ones(2, 3), [-1, 2, 3], out=torch.empty(0))


@SETTINGS
@given(data=st.data())
def test_repeat_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 3, 0, 3)))
    extra = data.draw(st.integers(-1 if a.dim() else 0, 2))
    repeats = [data.draw(st.integers(0, 3)) for _ in range(a.dim() + extra)]
    if repeats and data.draw(st.integers(0, 9)) == 0:
        repeats[0] = -1
    try:
        shape = tuple(a.repeat(repeats).shape)
    except RuntimeError:
        shape = None
    out = data.draw(out_tensors(a.dtype, shape))
    check_op(call_op, "aten::repeat.out", aten.repeat.out, (a, repeats), out=out)


def test_repeat_many_dims(call_op: Any) -> None:
    a = torch.arange(6, dtype=torch.int16).view(1, 2, 1, 3, 1, 1, 1, 1, 1)
    repeats = [2, 1, 2, 2, 1, 1, 2, 1, 1, 1, 1, 2]
    out = call_op("aten::repeat.out", a, repeats, out=torch.empty(0, dtype=torch.int16))
    torch.testing.assert_close(out, a.repeat(repeats), rtol=0, atol=0)
