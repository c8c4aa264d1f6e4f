"""aten::_native_batch_norm_legit_no_training.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same
from strategies import FLOAT_DTYPES, dtypes, make_tensor, out_like, shapes

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
NAME = "aten::_native_batch_norm_legit_no_training.out"


def check_three_outs(call_op: Any, args: tuple, outs: tuple) -> None:
    torch_outs = [o.clone() for o in outs]
    kiln_outs = tuple(o.clone() for o in outs)
    op = aten._native_batch_norm_legit_no_training.out
    try:
        op(*args, out0=torch_outs[0], out1=torch_outs[1], out2=torch_outs[2])
    except (RuntimeError, IndexError, NotImplementedError):
        with pytest.raises(kiln.KilnError):
            call_op(NAME, *args, out=kiln_outs)
        return
    result = call_op(NAME, *args, out=kiln_outs)
    assert all(r is k for r, k in zip(result, kiln_outs, strict=True))
    for actual, expected in zip(kiln_outs, torch_outs, strict=True):
        assert_same(actual, expected, atol=1e-5)


@SETTINGS
@given(data=st.data())
def test_batch_norm_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES) if data.draw(st.integers(0, 5)) else dtypes)
    shape = data.draw(shapes(2, 4, 0, 5))
    channels = shape[1]
    seed = data.draw(st.integers(0, 2**31 - 1))
    x = make_tensor(dtype, shape, seed, magnitude=3.0)
    param_dtype = dtype if dtype.is_floating_point else torch.float32
    if dtype in (torch.float16, torch.bfloat16) and data.draw(st.booleans()):
        param_dtype = torch.float32
    mean = make_tensor(param_dtype, (channels,), seed + 1)
    var = make_tensor(param_dtype, (channels,), seed + 2).abs()
    weight = make_tensor(param_dtype, (channels,), seed + 3) if data.draw(st.booleans()) else None
    bias = make_tensor(param_dtype, (channels,), seed + 4) if data.draw(st.booleans()) else None
    stat_dtype = param_dtype if is_mixed(dtype, param_dtype) else dtype
    outs = (out_like(dtype, None), out_like(stat_dtype, None), out_like(stat_dtype, None))
    eps = data.draw(st.sampled_from([1e-5, 0.1]))
    check_three_outs(call_op, (x, weight, bias, mean, var, 0.1, eps), outs)


def is_mixed(dtype: torch.dtype, param_dtype: torch.dtype) -> bool:
    return dtype != param_dtype and dtype in (torch.float16, torch.bfloat16)


def test_batch_norm_large(call_op: Any) -> None:
    x = make_tensor(torch.float32, (4, 16, 30, 30), 1)
    params = [make_tensor(torch.float32, (16,), s) for s in range(4)]
    params[3] = params[3].abs()
    outs = tuple(torch.empty(0) for _ in range(3))
    check_three_outs(call_op, (x, params[0], params[1], params[2], params[3], 0.1, 1e-5), outs)


def test_batch_norm_errors(call_op: Any) -> None:
    outs = tuple(torch.empty(0) for _ in range(3))
    z = torch.zeros(3)
    with pytest.raises(kiln.KilnError, match="Dimension out of range"):
        call_op(NAME, torch.ones(3), None, None, z, z, 0.1, 1e-5, out=outs)
    with pytest.raises(kiln.KilnError, match="mixed dtype"):
        call_op(NAME, torch.ones(2, 3), None, None, z.double(), z.double(), 0.1, 1e-5, out=outs)
