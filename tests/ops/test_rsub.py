"""aten::rsub.Scalar_out against torch: other - alpha * self (a scalar minus a tensor)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from binary_checks import raises
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, eps, magnitude
from strategies import ALL_DTYPES, any_scalars, make_tensor, out_tensors, tensors

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

RSUB = "aten::rsub.Scalar_out"
rsub = torch.ops.aten.rsub.Scalar_out
alphas = st.one_of(
    st.integers(-3, 3), st.integers(-300, 300), st.floats(-4, 4, width=32), st.booleans()
)


def alpha_atol(result: torch.dtype, a: torch.Tensor, other: Any, alpha: Any) -> float:
    """Room for ATen rounding alpha * self (or fusing it) where Kiln does not."""
    if not result.is_floating_point:
        return 0.0
    return 2 * eps(result) * (magnitude(other) + abs(float(alpha)) * magnitude(a))


@SETTINGS
@given(data=st.data())
def test_rsub_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors())
    other = data.draw(any_scalars)
    alpha = data.draw(alphas)
    result = torch.result_type(a, other)
    # A Scalar_out wants exactly the result dtype; out_tensors sometimes offers another.
    out = data.draw(out_tensors(result, tuple(a.shape)))
    atol = alpha_atol(result, a, other, alpha)
    check_op(call_op, RSUB, rsub, (a, other), {"alpha": alpha}, out=out, atol=atol)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d != torch.bool])
def test_rsub_long_rows(call_op: Any, dtype: torch.dtype) -> None:
    a = make_tensor(dtype, (3, 700), seed=1, int_range=(-1000, 1000))
    for other, alpha in [(5, 1), (-3, 2), (7, -1)]:
        out = torch.empty(0, dtype=dtype)
        check_op(call_op, RSUB, rsub, (a, other), {"alpha": alpha}, out=out)


def test_rsub_errors(call_op: Any) -> None:
    flags = torch.ones(2, dtype=torch.bool)
    with raises(call_op, "with two bool tensors is not supported"):
        call_op(RSUB, flags, True, out=torch.empty(0, dtype=torch.bool))
    with raises(call_op, "with a bool tensor is not supported"):
        call_op(RSUB, flags, 1, out=torch.empty(0, dtype=torch.int64))
    with raises(call_op, "with a bool tensor is not supported"):
        call_op(RSUB, torch.ones(2), True, out=torch.empty(0))
    ints = torch.ones(2, dtype=torch.int64)
    with raises(call_op, "alpha must not be a floating point number"):
        call_op(RSUB, ints, 1, alpha=0.5, out=torch.empty(0, dtype=torch.int64))
    with raises(call_op, "(?i)Expected out tensor to have dtype Long"):
        call_op(RSUB, ints, 1, out=torch.empty(0))
