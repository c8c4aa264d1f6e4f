"""aten::max_pool2d_with_indices_backward.grad_input against torch, with the indices torch's
forward returns for the same arguments."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import FLOAT_DTYPES, INT_DTYPES, make_tensor, seeds

import kiln

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
NAME = "aten::max_pool2d_with_indices_backward.grad_input"


def torch_backward(*args: Any, out: torch.Tensor) -> torch.Tensor:
    return aten.max_pool2d_with_indices_backward.grad_input(*args, grad_input=out)


@st.composite
def pool_args(draw: Any) -> tuple[tuple[int, ...], tuple[Any, ...]]:
    """An input shape and (kernel_size, stride, padding, dilation, ceil_mode), in the forms the
    forward takes (pairs, single ints, an empty stride)."""
    kernel = [draw(st.integers(1, 4)) for _ in range(2)]
    stride = [draw(st.integers(1, 3)) for _ in range(2)]
    dilation = [draw(st.integers(1, 2)) for _ in range(2)]
    padding = [
        draw(st.integers(0, ((k - 1) * d + 1) // 2)) for k, d in zip(kernel, dilation, strict=True)
    ]
    form = draw(st.sampled_from(["pairs", "single", "empty_stride"]))
    if form == "single":
        kernel, stride, padding, dilation = kernel[:1], stride[:1], padding[:1], dilation[:1]
        padding = [min(padding[0], ((kernel[0] - 1) * dilation[0] + 1) // 2)]
    elif form == "empty_stride":
        stride = []
    lead = draw(st.sampled_from([(), (0,), (1,), (2,)]))
    shape = (*lead, draw(st.integers(1, 3)), draw(st.integers(1, 9)), draw(st.integers(1, 9)))
    return shape, (kernel, stride, padding, dilation, draw(st.booleans()))


def backward_args(x: torch.Tensor, pool: tuple[Any, ...], seed: int) -> tuple[Any, ...]:
    """(grad_output, self, *pool, indices), with torch's forward indices."""
    out, indices = aten.max_pool2d_with_indices(x, *pool)
    grad_output = make_tensor(x.dtype, tuple(out.shape), seed, magnitude=4.0)
    return (grad_output, x, *pool, indices)


def reaches_the_input(x: torch.Tensor, pool: tuple[Any, ...]) -> bool:
    """Whether torch's forward takes these arguments and every window holds an input element. A
    window that holds none (padding and dilation put every tap outside) gets an index past the
    plane, where libtorch's backward writes out of bounds: Kiln's refuses it
    (test_indices_outside_the_plane_are_refused); libtorch's must not run on it."""
    try:
        _, indices = aten.max_pool2d_with_indices(x, *pool)
    except RuntimeError:
        return False  # test_pool2d covers the forward's refusals
    return bool(((indices >= 0) & (indices < x.shape[-2] * x.shape[-1])).all())


@SETTINGS
@given(case=pool_args(), dtype=st.sampled_from(FLOAT_DTYPES), seed=seeds, special=st.booleans())
def test_max_pool2d_backward_matches_torch(
    call_op: Any, case: Any, dtype: torch.dtype, seed: int, special: bool
) -> None:
    shape, pool = case
    x = make_tensor(dtype, shape, seed, special=special)
    assume(reaches_the_input(x, pool))
    args = backward_args(x, pool, seed + 1)
    check_op(call_op, NAME, torch_backward, args, out=torch.empty(0, dtype=dtype))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_shared_maxima_sum_in_torchs_order(call_op: Any, dtype: torch.dtype) -> None:
    # A constant input puts every window's max on its first element: overlapping windows send
    # many gradients to one element, summed (and rounded, for 16-bit floats) in ATen's order.
    x = torch.zeros(2, 3, 8, 8, dtype=dtype)
    args = backward_args(x, ([3, 3], [1, 1], [1, 1], [1, 1], False), 7)
    check_op(call_op, NAME, torch_backward, args, out=torch.empty(0, dtype=dtype))


def test_refusals_match_torch(call_op: Any) -> None:
    x = make_tensor(torch.float32, (2, 3, 7, 7), 1)
    pool = ([3, 3], [2, 2], [1, 1], [1, 1], False)
    grad, _, *_, indices = backward_args(x, pool, 2)
    out = torch.empty(0)
    cases = [
        (grad.double(), x, *pool, indices),  # grad_output of another dtype
        (grad, x, *pool, indices.int()),  # indices not Long
        (
            grad[:, :, :2].contiguous(),
            x,
            *pool,
            indices[:, :, :2].contiguous(),
        ),  # not the forward's output shape
        (grad, x, *pool[:4], True, indices),  # ceil_mode=True gives another output shape
        (grad, x, [3, 3], [], [1, 1], [1, 1], False, indices),  # stride defaults to the kernel
        (grad, x, [3, 3], [2, 2], [2, 2], [1, 1], False, indices),  # pad over half the kernel
    ]
    for args in cases:
        check_op(call_op, NAME, torch_backward, args, out=out)
    for dtype in [*INT_DTYPES, torch.bool]:
        xi = torch.zeros(2, 3, 7, 7, dtype=dtype)
        args = (grad.to(dtype), xi, *pool, indices)
        check_op(call_op, NAME, torch_backward, args, out=torch.empty(0, dtype=dtype))
    check_op(call_op, NAME, torch_backward, (grad, x, *pool, indices), out=out.double())


def test_indices_outside_the_plane_are_refused() -> None:
    """Kiln's kernel checks every index (libtorch's writes out of bounds), and skips -1 as
    libtorch does."""
    x = torch.zeros(1, 1, 3, 3)
    grad = torch.ones(1, 1, 2, 2)
    for bad in (-2, 9):
        indices = torch.tensor([[[[0, 1], [bad, 4]]]])
        with pytest.raises(kiln.KilnError, match=f"indices holds {bad}, outside an input plane"):
            kiln.call_op(NAME, grad, x, [2, 2], [1, 1], [0, 0], [1, 1], False, indices, out=x)
    indices = torch.tensor([[[[0, -1], [4, 4]]]])
    result = kiln.call_op(NAME, grad, x, [2, 2], [1, 1], [0, 0], [1, 1], False, indices, out=x)
    assert result.flatten().tolist() == [1, 0, 0, 0, 2, 0, 0, 0, 0]
    # The forward's index for a window with no input element (here both taps of the window
    # fall in the padding) lies past the plane too.
    x = torch.zeros(1, 1, 1)
    pool = ([2, 1], [1, 1], [1, 0], [2, 1], False)
    out, indices = kiln.call_op(
        "aten::max_pool2d_with_indices.out", x, *pool, out=(torch.empty(0), torch.empty(0).long())
    )
    assert indices.flatten().tolist() == [1]
    with pytest.raises(kiln.KilnError, match="holds no input element"):
        kiln.call_op(NAME, torch.ones_like(out), x, *pool, indices, out=torch.empty(0))
