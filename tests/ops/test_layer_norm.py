"""aten::native_layer_norm.out against torch (output, mean and rstd)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, backend_of, eps, largest, tolerances_for
from strategies import FLOAT_DTYPES, dtypes, make_tensor, out_like, shapes

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
NAME = "aten::native_layer_norm.out"


def check_three_outs(call_op: Any, args: tuple, outs: tuple, atol: float = 1e-5) -> None:
    """Runs torch and the backend with their own copies of the three outs and compares."""
    torch_outs = [o.clone() for o in outs]
    kiln_outs = tuple(o.clone() for o in outs)
    try:
        aten.native_layer_norm.out(
            *args, out0=torch_outs[0], out1=torch_outs[1], out2=torch_outs[2]
        )
    except (RuntimeError, IndexError, NotImplementedError):
        with pytest.raises(kiln.KilnError):
            call_op(NAME, *args, out=kiln_outs)
        return
    result = call_op(NAME, *args, out=kiln_outs)
    assert all(r is k for r, k in zip(result, kiln_outs, strict=True))
    # ATen's affine step leaves rounding residue of about eps * |x| * rstd * |w| where the
    # exact result is small (e.g. constant rows, where rstd is 1/sqrt(eps)).
    residue = (
        4
        * eps(args[0].dtype)
        * largest(args[0])
        * largest(torch_outs[2])
        * max(largest(args[2]), 1.0)
    )
    for index, (actual, expected) in enumerate(zip(kiln_outs, torch_outs, strict=True)):
        scale = largest(expected)
        assert_same(
            actual,
            expected,
            atol=atol * (1 + scale) + (residue if index == 0 else 0),
            tolerances=tolerances_for(backend_of(call_op)),
        )


@SETTINGS
@given(data=st.data())
def test_layer_norm_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES) if data.draw(st.integers(0, 5)) else dtypes)
    shape = data.draw(shapes(1, 4, 0, 6))
    norm_dims = data.draw(st.integers(0 if data.draw(st.integers(0, 9)) == 0 else 1, len(shape)))
    normalized = list(shape[len(shape) - norm_dims :])
    if data.draw(st.integers(0, 9)) == 0 and normalized:
        normalized[0] += 1  # does not match the input
    seed = data.draw(st.integers(0, 2**31 - 1))
    x = make_tensor(dtype, shape, seed, magnitude=3.0)
    param_dtype = dtype
    if dtype in (torch.float16, torch.bfloat16) and data.draw(st.booleans()):
        param_dtype = torch.float32  # mixed precision
    weight = bias = None
    if param_dtype.is_floating_point and data.draw(st.booleans()):
        weight = make_tensor(param_dtype, tuple(normalized), seed + 1)
    if param_dtype.is_floating_point and data.draw(st.booleans()):
        bias = make_tensor(param_dtype, tuple(normalized), seed + 2)
    eps = data.draw(st.sampled_from([1e-5, 1e-3, 0.5]))
    stat_dtype = param_dtype if (weight is not None or bias is not None) else dtype
    outs = (out_like(dtype, None), out_like(stat_dtype, None), out_like(stat_dtype, None))
    check_three_outs(call_op, (x, normalized, weight, bias, eps), outs)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_layer_norm_long_rows(call_op: Any, dtype: torch.dtype) -> None:
    x = (make_tensor(torch.float64, (8, 1000), 3) + 100).to(dtype)
    w = make_tensor(dtype, (1000,), 4)
    b = make_tensor(dtype, (1000,), 5)
    outs = tuple(torch.empty(0, dtype=dtype) for _ in range(3))
    check_three_outs(call_op, (x, [1000], w, b, 1e-5), outs)
    check_three_outs(call_op, (x.reshape(8, 10, 100), [10, 100], None, None, 1e-5), outs)


def test_layer_norm_errors(call_op: Any) -> None:
    outs = tuple(torch.empty(0) for _ in range(3))
    with pytest.raises(kiln.KilnError, match="expected input with shape"):
        call_op(NAME, torch.ones(2, 3), [4], None, None, 1e-5, out=outs)
    with pytest.raises(kiln.KilnError, match="Expected weight to be of same shape"):
        call_op(NAME, torch.ones(2, 3), [3], torch.ones(2), None, 1e-5, out=outs)
    with pytest.raises(kiln.KilnError, match="at least 1-dimensional"):
        call_op(NAME, torch.ones(2, 3), [], None, None, 1e-5, out=outs)
