"""aten::_native_batch_norm_legit_no_training.out and aten::_native_batch_norm_legit (.out,
.no_stats_out) against torch, including the running statistics training writes."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, is_portable, raises
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


def test_batch_norm_zero_variance_plus_eps(call_op: Any) -> None:
    # var + eps == 0: an infinite scale, where torch's x * scale + (bias - mean * scale) gives
    # NaN and -inf (and NaN for a zero mean); a negative var + eps gives NaN.
    x = make_tensor(torch.float32, (2, 4, 9), 7)
    mean = torch.tensor([0.0, 1.0, -2.0, 0.5])
    var = torch.tensor([1.0, 1.0, 1.0, 0.25])
    for weight, bias in ((None, None), (torch.full((4,), 2.0), torch.ones(4))):
        outs = tuple(torch.empty(0) for _ in range(3))
        check_three_outs(call_op, (x, weight, bias, mean, var, 0.1, -1.0), outs)


def test_batch_norm_errors(call_op: Any) -> None:
    outs = tuple(torch.empty(0) for _ in range(3))
    z = torch.zeros(3)
    with pytest.raises(kiln.KilnError, match="Dimension out of range"):
        call_op(NAME, torch.ones(3), None, None, z, z, 0.1, 1e-5, out=outs)
    with pytest.raises(kiln.KilnError, match="mixed dtype"):
        call_op(NAME, torch.ones(2, 3), None, None, z.double(), z.double(), 0.1, 1e-5, out=outs)


LEGIT = "aten::_native_batch_norm_legit.out"
NO_STATS = "aten::_native_batch_norm_legit.no_stats_out"


def check_legit(
    call_op: Any, name: str, args: tuple, stats: tuple, flags: tuple, outs: tuple, atol: float
) -> None:
    """Runs torch and the backend on their own copies of the running stats (`stats`, written in
    training) and outs; both must refuse, or agree on the outs and the stats afterwards."""
    torch_stats = tuple(s.clone() for s in stats)
    kiln_stats = tuple(s.clone() for s in stats)
    torch_outs = tuple(o.clone() for o in outs)
    kiln_outs = tuple(o.clone() for o in outs)
    op = aten._native_batch_norm_legit.out if stats else aten._native_batch_norm_legit.no_stats_out
    names = ("out", "save_mean", "save_invstd")
    try:
        op(*args, *torch_stats, *flags, **dict(zip(names, torch_outs, strict=True)))
    except (RuntimeError, IndexError, NotImplementedError):
        with pytest.raises(kiln.KilnError):
            call_op(name, *args, *kiln_stats, *flags, out=kiln_outs)
        return
    result = call_op(name, *args, *kiln_stats, *flags, out=kiln_outs)
    assert all(r is k for r, k in zip(result, kiln_outs, strict=True))
    out_atol = atol + statistic_rounding(args, torch_outs) if flags[0] else atol
    assert_same(kiln_outs[0], torch_outs[0], atol=out_atol)
    for actual, expected in zip(kiln_outs[1:], torch_outs[1:], strict=True):
        assert_same(actual, expected, atol=atol)
    for actual, expected, before in zip(kiln_stats, torch_stats, stats, strict=True):
        assert_same(actual, expected, atol=atol + running_stat_rounding(before, expected))


def running_stat_rounding(before: torch.Tensor, after: torch.Tensor) -> float:
    """How far a Half/BFloat16 running statistic may differ from torch's: (1 - m) * old + m * new
    cancels when the terms have opposite signs, and torch rounds its terms in the 16-bit type
    where Kiln sums them in float, so the result may move by a unit in the last place of the
    terms, not of the (small) result."""
    if before.dtype not in (torch.float16, torch.bfloat16) or before.numel() == 0:
        return 0.0
    scale = max(before.abs().max().item(), after.abs().max().item())
    return 4 * torch.finfo(before.dtype).eps * scale


def statistic_rounding(args: tuple, outs: tuple) -> float:
    """How far one unit in the last place of a Half/BFloat16 save_mean or save_invstd (which
    round differently when the statistic lies near a rounding boundary) can move the output."""
    x, weight = args[0], args[1]
    if x.dtype not in (torch.float16, torch.bfloat16) or x.numel() == 0:
        return 0.0
    spread = float(x.double().abs().max() + outs[1].double().abs().max())
    scale = float(outs[2].double().abs().max()) * (
        float(weight.double().abs().max()) if weight is not None else 1.0
    )
    return 2 * torch.finfo(outs[1].dtype).eps * spread * scale


@st.composite
def legit_case(draw: Any) -> tuple[tuple, tuple, torch.dtype, torch.dtype]:
    """(input, weight, bias), (running_mean, running_var), input dtype, statistics dtype."""
    dtype = draw(st.sampled_from(FLOAT_DTYPES) if draw(st.integers(0, 5)) else dtypes)
    shape = draw(shapes(2, 4, 1, 5))
    channels = shape[1]
    seed = draw(st.integers(0, 2**31 - 1))
    x = make_tensor(dtype, shape, seed, magnitude=3.0)
    if x.numel() // channels == 1:
        x = x * 0  # one sample per channel normalises to exactly 0 in both
    param_dtype = dtype if dtype.is_floating_point else torch.float32
    if dtype in (torch.float16, torch.bfloat16) and draw(st.booleans()):
        param_dtype = torch.float32
    weight = make_tensor(param_dtype, (channels,), seed + 3) if draw(st.booleans()) else None
    bias = make_tensor(param_dtype, (channels,), seed + 4) if draw(st.booleans()) else None
    mean = make_tensor(param_dtype, (channels,), seed + 1)
    var = make_tensor(param_dtype, (channels,), seed + 2).abs()
    stat_dtype = param_dtype if is_mixed(dtype, param_dtype) else dtype
    return (x, weight, bias), (mean, var), dtype, stat_dtype


@SETTINGS
@given(data=st.data())
def test_batch_norm_legit_matches_torch(call_op: Any, data: Any) -> None:
    args, stats, dtype, stat_dtype = data.draw(legit_case())
    training = data.draw(st.booleans())
    flags = (training, data.draw(st.sampled_from([0.1, 0.0, 1.0])), 1e-5)
    # Out of training ATen leaves save_mean/save_invstd alone: pre-filled ones must stay.
    saves = torch.full((3,), 7.0, dtype=stat_dtype) if data.draw(st.booleans()) else None
    outs = (
        out_like(dtype, None),
        saves if saves is not None else out_like(stat_dtype, None),
        saves.clone() if saves is not None else out_like(stat_dtype, None),
    )
    check_legit(call_op, LEGIT, args, stats, flags, outs, atol=1e-5)


@SETTINGS
@given(data=st.data())
def test_batch_norm_legit_no_stats_matches_torch(call_op: Any, data: Any) -> None:
    args, _, dtype, stat_dtype = data.draw(legit_case())
    # training=False crashes ATen's kernel: test_batch_norm_legit_no_stats_needs_training.
    flags = (True, 0.1, data.draw(st.sampled_from([1e-5, 0.1])))
    outs = (out_like(dtype, None), out_like(stat_dtype, None), out_like(stat_dtype, None))
    check_legit(call_op, NO_STATS, args, (), flags, outs, atol=1e-5)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_batch_norm_legit_large(call_op: Any, dtype: torch.dtype) -> None:
    x = make_tensor(torch.float32, (4, 16, 30, 30), 1).to(dtype)
    params = tuple(make_tensor(dtype, (16,), s) for s in range(4))
    stats = (params[2], params[3].abs())
    outs = tuple(torch.empty(0, dtype=dtype) for _ in range(3))
    check_legit(call_op, LEGIT, (x, *params[:2]), stats, (True, 0.1, 1e-5), outs, 1e-5)
    check_legit(call_op, NO_STATS, (x, None, params[1]), (), (True, 0.1, 1e-5), outs, 1e-5)


def test_batch_norm_legit_edge_statistics(call_op: Any) -> None:
    # One sample per channel: the unbiased running variance is 0 / 0 (NaN); constant channels
    # with eps 0 give save_invstd 0.
    outs = tuple(torch.empty(0) for _ in range(3))
    stats = (torch.zeros(3), torch.ones(3))
    x = make_tensor(torch.float32, (1, 3, 1), 5)
    check_legit(call_op, LEGIT, (x, None, None), stats, (True, 0.1, 1e-5), outs, atol=1e-4)
    x = torch.ones(2, 3, 4)
    check_legit(call_op, LEGIT, (x, None, None), stats, (True, 0.1, 0.0), outs, atol=0.0)


def test_batch_norm_legit_refusals(call_op: Any) -> None:
    outs = tuple(torch.empty(0) for _ in range(3))
    stats = (torch.zeros(3), torch.ones(3))
    flags = (True, 0.1, 1e-5)
    for x in [torch.ones(0, 3, 2), torch.ones(3), torch.ones(2, 3, dtype=torch.int32)]:
        check_legit(call_op, LEGIT, (x, None, None), stats, flags, outs, 0.0)
    doubles = (torch.zeros(3).double(), torch.ones(3).double())
    check_legit(call_op, LEGIT, (torch.ones(2, 3), None, None), doubles, flags, outs, 0.0)
    if is_portable(call_op):  # ATen writes past the end of a short running_mean
        short = (torch.zeros(2), torch.ones(3))
        with raises(call_op, "running_mean should contain 3 elements"):
            call_op(LEGIT, torch.ones(2, 3), None, None, *short, *flags, out=outs)
    wrong_save = (torch.empty(0), torch.empty(0, dtype=torch.float64), torch.empty(0))
    check_legit(call_op, LEGIT, (torch.ones(2, 3), None, None), stats, flags, wrong_save, 0.0)


def test_batch_norm_legit_no_stats_needs_training(call_op: Any) -> None:
    if not is_portable(call_op):
        pytest.skip("ATen's kernel crashes on training=False without running stats")
    outs = tuple(torch.empty(0) for _ in range(3))
    with raises(call_op, "without running statistics batch norm can only train"):
        call_op(NO_STATS, torch.ones(2, 3), None, None, False, 0.1, 1e-5, out=outs)
