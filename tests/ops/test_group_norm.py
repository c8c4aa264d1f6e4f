"""aten::native_group_norm.out against torch (output, mean and rstd)."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, eps, largest
from strategies import FLOAT_DTYPES, dtypes, make_tensor, out_like

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
NAME = "aten::native_group_norm.out"


def check_three_outs(call_op: Any, args: tuple, outs: tuple) -> None:
    torch_outs = [o.clone() for o in outs]
    kiln_outs = tuple(o.clone() for o in outs)
    try:
        aten.native_group_norm.out(
            *args, out0=torch_outs[0], out1=torch_outs[1], out2=torch_outs[2]
        )
    except (RuntimeError, IndexError, NotImplementedError):
        with pytest.raises(kiln.KilnError):
            call_op(NAME, *args, out=kiln_outs)
        return
    result = call_op(NAME, *args, out=kiln_outs)
    assert all(r is k for r, k in zip(result, kiln_outs, strict=True))
    # ATen computes x * (rstd * w) + (b - mean * rstd * w), which leaves rounding residue of
    # about eps * |x| * rstd * |w| where the exact result is small (e.g. constant groups).
    residue = (
        4
        * eps(args[0].dtype)
        * largest(args[0])
        * largest(torch_outs[2])
        * max(largest(args[1]), 1.0)
    )
    for index, (actual, expected) in enumerate(zip(kiln_outs, torch_outs, strict=True)):
        scale = largest(expected)
        assert_same(actual, expected, atol=1e-5 * (1 + scale) + (residue if index == 0 else 0))


@SETTINGS
@given(data=st.data())
def test_group_norm_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES) if data.draw(st.integers(0, 5)) else dtypes)
    n = data.draw(st.integers(0, 3))
    group = data.draw(st.integers(1, 3))
    channels = group * data.draw(st.integers(0, 3))
    if data.draw(st.integers(0, 9)) == 0:
        channels += 1  # not divisible by group (unless group is 1)
    spatial = data.draw(st.lists(st.integers(0, 4), max_size=2))
    shape = (n, channels, *spatial)
    hxw = math.prod(spatial)
    seed = data.draw(st.integers(0, 2**31 - 1))
    x = make_tensor(dtype, shape, seed, magnitude=3.0)
    param_dtype = dtype if dtype.is_floating_point else torch.float32
    if dtype in (torch.float16, torch.bfloat16) and data.draw(st.booleans()):
        param_dtype = torch.float32
    weight = make_tensor(param_dtype, (channels,), seed + 1) if data.draw(st.booleans()) else None
    bias = make_tensor(param_dtype, (channels,), seed + 2) if data.draw(st.booleans()) else None
    stat_dtype = param_dtype if (weight is not None or bias is not None) else dtype
    outs = (out_like(dtype, None), out_like(stat_dtype, None), out_like(stat_dtype, None))
    check_three_outs(call_op, (x, weight, bias, n, channels, hxw, group, 1e-5), outs)


def test_group_norm_large(call_op: Any) -> None:
    x = make_tensor(torch.float32, (2, 32, 20, 20), 1) + 10
    w = make_tensor(torch.float32, (32,), 2)
    b = make_tensor(torch.float32, (32,), 3)
    outs = tuple(torch.empty(0) for _ in range(3))
    check_three_outs(call_op, (x, w, b, 2, 32, 400, 8, 1e-5), outs)


def test_group_norm_errors(call_op: Any) -> None:
    outs = tuple(torch.empty(0) for _ in range(3))
    with pytest.raises(kiln.KilnError, match="divisible by num_groups"):
        call_op(NAME, torch.ones(2, 3, 4), None, None, 2, 3, 4, 2, 1e-5, out=outs)
    with pytest.raises(kiln.KilnError, match="N \\* C \\* HxW"):
        call_op(NAME, torch.ones(2, 3, 4), None, None, 2, 3, 5, 1, 1e-5, out=outs)
