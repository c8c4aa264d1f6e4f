"""aten::logit.out against torch: log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given
(integer and bool inputs compute in Float; Half and BFloat16 round each step, as ATen does)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, magnitude, raises
from op_compare import eps as eps_of
from strategies import ALL_DTYPES, FLOAT_DTYPES, dtypes, make_tensor, out_like, seeds, shapes

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LOGIT = "aten::logit.out"
logit = torch.ops.aten.logit.out
# None and negative eps clamp nothing; NaN clamps nothing either; eps above 1/2 crosses the limits.
EPS = [None, None, -0.5, 0.0, 1e-9, 1e-6, 0.01, 0.25, 0.5, 0.6, 1.0, float("nan")]


def result_dtype(dtype: torch.dtype) -> torch.dtype:
    return dtype if dtype.is_floating_point else torch.get_default_dtype()


def probabilities(dtype: torch.dtype, shape: tuple[int, ...], seed: int) -> torch.Tensor:
    """Mostly values in [0, 1] (ends included), some outside it, nan and infinities."""
    if not dtype.is_floating_point:
        return make_tensor(dtype, shape, seed, int_range=(-1, 2))
    values = make_tensor(torch.float64, shape, seed, special=True, magnitude=3.0).sigmoid()
    every_seventh = values.view(-1)[::7]
    edges = torch.tensor([0.0, 1.0, -0.5, 1.5, float("inf")], dtype=torch.float64)
    every_seventh.copy_(edges.repeat(every_seventh.numel() // 5 + 1)[: every_seventh.numel()])
    return values.to(dtype)


@SETTINGS
@given(data=st.data())
def test_logit_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(dtypes)
    a = probabilities(dtype, data.draw(shapes()), data.draw(seeds))
    eps = data.draw(st.sampled_from(EPS))
    result = result_dtype(dtype)
    out_dtype = data.draw(st.sampled_from([result, result, *FLOAT_DTYPES, torch.int64]))
    shape = tuple(a.shape) if data.draw(st.booleans()) else None
    # A Half or BFloat16 result written to a wider out keeps its own rounding, where Kiln and
    # ATen may differ by an ulp: allow two.
    atol = 0.0
    if out_dtype.is_floating_point and eps_of(result) > eps_of(out_dtype):
        atol = 2 * eps_of(result) * magnitude(torch.logit(a.double(), eps))
    check_op(call_op, LOGIT, logit, (a, eps), out=out_like(out_dtype, shape), atol=atol)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("eps", [None, 0.05])
def test_logit_long_inputs(call_op: Any, dtype: torch.dtype, eps: float | None) -> None:
    # Long enough for the vector loops and several conversion chunks.
    a = probabilities(dtype, (3, 700), seed=5)
    check_op(call_op, LOGIT, logit, (a, eps), out=torch.empty(0, dtype=result_dtype(dtype)))


def test_logit_float32_accuracy(call_op: Any) -> None:
    # Against float64 torch on float32 inputs: within a few ulp of the rounded quotient's log.
    p = torch.cat(
        [
            torch.rand(20000, generator=torch.Generator().manual_seed(3)),
            torch.tensor([0.0, 1.0, 1e-30, 1 - 2**-24, 0.5, 2.0, -1.0, float("nan")]),
        ]
    )
    got = call_op(LOGIT, p, None, out=torch.empty(0))
    quotient = p / (1 - p)  # rounded to float32, as ATen computes it
    torch.testing.assert_close(
        got, quotient.double().log().float(), rtol=1e-6, atol=0, equal_nan=True
    )


def test_logit_errors(call_op: Any) -> None:
    with raises(call_op, "can't be cast to the desired output type Int"):
        call_op(LOGIT, torch.rand(3), None, out=torch.empty(0, dtype=torch.int32))
    with raises(call_op, "can't be cast"):
        call_op(LOGIT, torch.ones(3, dtype=torch.bool), 0.1, out=torch.empty(0, dtype=torch.bool))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("eps", [None, 0.0, 1e-6, 0.3])
def test_logit_edge_blocks(call_op: Any, dtype: torch.dtype, eps: float | None) -> None:
    # Float and double take the vectorised log where the clamped p is in [smallest normal, 1);
    # a block holding 0, 1, a subnormal, -0, a value outside [0, 1], an infinity or NaN takes the
    # edge-complete formula. Edges land in some blocks, around long runs of ordinary values.
    info = torch.finfo(dtype)
    edges = [0.0, -0.0, 1.0, info.tiny / 4, info.tiny, 1 - info.eps / 2, -0.5, 1.5]
    edges += [float("inf"), -float("inf"), float("nan"), 2 * info.tiny]
    gen = torch.Generator().manual_seed(13)
    p = torch.rand(3000, generator=gen, dtype=torch.float64).to(dtype) * 0.98 + 0.01
    p[torch.tensor([0, 1, 700, 701, 1500, 2999])] = torch.tensor(edges[:6], dtype=dtype)
    p[2000:2006] = torch.tensor(edges[6:], dtype=dtype)
    check_op(call_op, LOGIT, logit, (p, eps), out=torch.empty(0, dtype=dtype))
    # Against float64 of the rounded quotient: within a few ulp, the edges exactly.
    got = call_op(LOGIT, p, eps, out=torch.empty(0, dtype=dtype))
    x = p if eps is None else p.clamp(eps, 1 - eps)
    expected = (x / (1 - x)).double().log().to(dtype)
    torch.testing.assert_close(got, expected, rtol=4 * info.eps, atol=0, equal_nan=True)
