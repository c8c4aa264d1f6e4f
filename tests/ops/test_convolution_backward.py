"""aten::convolution_backward.out (1-D and 2-D, grouped, strided, padded, dilated, transposed)
against torch's convolution_backward: grad_input, grad_weight and grad_bias, each when
output_mask asks for it."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, eps, is_portable, magnitude
from strategies import FLOAT_DTYPES, INT_DTYPES, make_tensor, seeds

import kiln

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
NAME = "aten::convolution_backward.out"


@st.composite
def conv_case(draw: Any) -> dict[str, Any]:
    """A convolution's arguments (as test_convolution.py draws them) with a valid output."""
    transposed = draw(st.booleans())
    spatial = draw(st.sampled_from([1, 2]))
    groups = draw(st.integers(1, 3))
    in_per_group = draw(st.integers(1, 3))
    out_per_group = draw(st.integers(1, 3))
    kernel = [draw(st.integers(1, 3)) for _ in range(spatial)]
    stride = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dilation = [draw(st.integers(1, 2)) for _ in range(spatial)]
    padding = [draw(st.integers(0, 2)) for _ in range(spatial)]
    output_padding = [0] * spatial
    size = [draw(st.integers(1, 7)) for _ in range(spatial)]
    if transposed:
        output_padding = [
            draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation, strict=True)
        ]
        padding = [
            min(p, ((n - 1) * s + d * (k - 1) + o) // 2)
            for p, n, s, d, k, o in zip(
                padding, size, stride, dilation, kernel, output_padding, strict=True
            )
        ]
        weight = (groups * in_per_group, out_per_group, *kernel)
    else:
        size = [
            max(n, d * (k - 1) + 1 - 2 * p)
            for n, k, d, p in zip(size, kernel, dilation, padding, strict=True)
        ]
        weight = (groups * out_per_group, in_per_group, *kernel)
    batch = draw(st.integers(0, 3))
    return {
        "input": (batch, groups * in_per_group, *size),
        "weight": weight,
        "stride": stride[:1] if draw(st.booleans()) and len(set(stride)) == 1 else stride,
        "padding": padding,
        "dilation": dilation,
        "transposed": transposed,
        "output_padding": output_padding,
        "groups": groups,
        "out_channels": groups * out_per_group,
    }


def run_case(
    call_op: Any, case: dict[str, Any], dtype: torch.dtype, mask: list[bool], seed: int
) -> None:
    x = make_tensor(dtype, case["input"], seed, magnitude=2.0, int_range=(-9, 9))
    w = make_tensor(dtype, case["weight"], seed + 1, magnitude=2.0, int_range=(-9, 9))
    params = [
        case["stride"],
        case["padding"],
        case["dilation"],
        case["transposed"],
        case["output_padding"],
        case["groups"],
    ]
    forward = aten.convolution(x.float(), w.float(), None, *params)
    grad = make_tensor(dtype, tuple(forward.shape), seed + 2, magnitude=2.0, int_range=(-9, 9))
    args = (grad, x, w, [case["out_channels"]], *params, mask)
    # The gradients the mask leaves out must stay as they are.
    outs = tuple(
        torch.empty(0, dtype=dtype) if wanted else torch.full((1,), 5.0, dtype=dtype)
        for wanted in mask
    )
    before = [o.clone() for o in outs]
    sixteen_bit = dtype in (torch.float16, torch.bfloat16)
    # What torch refuses, Kiln must refuse. libtorch's own 16-bit kernels are not asked: its
    # oneDNN half path segfaults on some of these geometries (a CI run died in this call), taking
    # the test process with it; Kiln computes every 16-bit case in float, checked below against
    # torch's float64 gradients.
    try:
        if not sixteen_bit:
            aten.convolution_backward(*args)
    except (RuntimeError, NotImplementedError):
        with pytest.raises(kiln.KilnError):
            call_op(NAME, *args, out=outs)
        return
    # The reference: torch's gradients of the same values in float64, rounded to the dtype.
    # libtorch's own 16-bit paths leave weight-gradient taps that receive nothing uninitialised
    # (garbage, e.g. 1e28 where float64 gives 0: a 1x2 kernel at stride 3 with padding 1 on a
    # 1x1 input) or crash (above), so the aten backend, which runs them, is not checked there.
    if not is_portable(call_op) and sixteen_bit:
        assume(False)  # hypothesis draws another case; no fixed case is one
    wide = (grad.double(), x.double(), w.double(), *args[3:])
    expected = [None if r is None else r.to(dtype) for r in aten.convolution_backward(*wide)]
    if not all(mask) and not is_portable(call_op):
        # libtorch's out variant copies every result and mostly refuses the undefined ones; the
        # gradients it computes must still be torch's.
        try:
            result = call_op(NAME, *args, out=outs)
        except kiln.KilnError:
            return
        before = list(result)
    else:
        result = call_op(NAME, *args, out=outs)
    assert all(r is o for r, o in zip(result, outs, strict=True))
    # Sums of products: grad_input over group_out * taps terms, grad_weight and grad_bias over
    # batch * positions; within a few rounding errors of each.
    taps = int(torch.tensor(case["weight"][2:]).prod())
    group_out = case["out_channels"] // case["groups"]
    positions = grad.numel() // max(grad.shape[1], 1)
    sums = [group_out * taps, positions, positions]
    scales = [magnitude(grad) * magnitude(w), magnitude(grad) * magnitude(x), magnitude(grad)]
    atols = [4 * eps(dtype) * max(sums[i], 1) * scales[i] for i in range(3)]
    for i in range(3):
        if mask[i]:
            assert_same(result[i], expected[i], atol=atols[i])
        else:
            torch.testing.assert_close(result[i], before[i], rtol=0, atol=0)


@SETTINGS
@given(case=conv_case(), dtype=st.sampled_from(FLOAT_DTYPES), seed=seeds)
def test_convolution_backward_matches_torch(
    call_op: Any, case: dict[str, Any], dtype: torch.dtype, seed: int
) -> None:
    run_case(call_op, case, dtype, [True, True, True], seed)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=conv_case(), mask=st.lists(st.booleans(), min_size=3, max_size=3), seed=seeds)
def test_output_mask_selects_the_gradients(
    call_op: Any, case: dict[str, Any], mask: list[bool], seed: int
) -> None:
    run_case(call_op, case, torch.float32, mask, seed)


def test_larger_convolution(call_op: Any) -> None:
    # Big enough for the gemm's blocking to split every dimension.
    case = {
        "input": (2, 16, 20, 20),
        "weight": (32, 8, 3, 3),
        "stride": [1],
        "padding": [1, 1],
        "dilation": [1, 1],
        "transposed": False,
        "output_padding": [0, 0],
        "groups": 2,
        "out_channels": 32,
    }
    run_case(call_op, case, torch.float32, [True, True, True], 3)
    transposed = {**case, "weight": (16, 16, 3, 3), "stride": [2, 1], "transposed": True}
    run_case(call_op, transposed, torch.float32, [True] * 3, 4)


def test_refusals_match_torch(call_op: Any) -> None:
    case = {
        "input": (2, 4, 6, 6),
        "weight": (6, 2, 3, 3),
        "stride": [1, 1],
        "padding": [0, 0],
        "dilation": [1, 1],
        "transposed": False,
        "output_padding": [0, 0],
        "groups": 2,
        "out_channels": 6,
    }
    for dtype in [*INT_DTYPES]:
        run_case(call_op, case, dtype, [True, True, True], 1)
    x = torch.randn(2, 4, 6, 6)
    w = torch.randn(6, 2, 3, 3)
    grad = torch.randn(2, 6, 4, 4)
    outs = (torch.empty(0), torch.empty(0), torch.empty(0))
    params = ([6], [1, 1], [0, 0], [1, 1], False, [0, 0])
    bad = [
        (grad, x, w, *params, 3, [True] * 3),  # channels do not divide into 3 groups
        (grad, x, w, [6], [0, 1], [0, 0], [1, 1], False, [0, 0], 2, [True] * 3),  # stride 0
        (grad, x[0], w, *params, 2, [True] * 3),  # input of the wrong rank
    ]
    for args in bad:
        with pytest.raises(kiln.KilnError):
            call_op(NAME, *args, out=outs)
    with pytest.raises(kiln.KilnError, match="dtype" if is_portable(call_op) else None):
        call_op(NAME, grad, x, w, *params, 2, [True] * 3, out=(torch.empty(0).double(), *outs[1:]))


def test_kiln_refusals() -> None:
    """Refusals of Kiln's kernel where libtorch's message is an internal one (oneDNN's)."""
    x = torch.randn(2, 4, 6, 6)
    w = torch.randn(6, 2, 3, 3)
    params = ([6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, [True] * 3)
    outs = (torch.empty(0), torch.empty(0), torch.empty(0))
    with pytest.raises(kiln.KilnError, match=r"Expected grad_output of size \[2, 6, 4, 4\]"):
        kiln.call_op(NAME, torch.randn(2, 6, 5, 5), x, w, *params, out=outs)
    with pytest.raises(kiln.KilnError, match="of one dtype"):
        kiln.call_op(NAME, torch.randn(2, 6, 4, 4), x, w.double(), *params, out=outs)
    with pytest.raises(kiln.KilnError, match="1-D and 2-D"):
        w3 = torch.randn(2, 2, 3, 3, 3)
        kiln.call_op(
            NAME,
            torch.randn(1, 2, 2, 2, 2),
            torch.randn(1, 2, 4, 4, 4),
            w3,
            [2],
            [1],
            [0],
            [1],
            False,
            [0],
            1,
            [True] * 3,
            out=outs,
        )
