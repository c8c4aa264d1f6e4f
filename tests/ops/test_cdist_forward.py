"""aten::_cdist_forward.out against torch: every norm, broadcast batch dims, and both of ATen's
ways of computing p = 2 (summed pairs, or the matrix product it takes for compute_mode 1 or,
by default, more than 25 rows).

The matrix product computes |a|^2 + |b|^2 - 2 a.b, which cancels for near points: its results
carry an absolute error of about sqrt(eps * |a|^2), in torch as in Kiln (whose product sums in
another order), so those cases compare with that tolerance."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import FLOAT_DTYPES, dtypes, make_tensor, out_tensors

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
NAME = "aten::_cdist_forward.out"
OP = aten._cdist_forward.out
NORMS = [0.0, 1.0, 2.0, 3.0, 0.5, 1.5, math.inf]


def uses_matmul(p: float, mode: int | None, r1: int, r2: int) -> bool:
    return p == 2 and (mode == 1 or ((mode or 0) == 0 and (r1 > 25 or r2 > 25)))


def tolerance(x1: torch.Tensor, x2: torch.Tensor, matmul: bool) -> float:
    """The absolute error both implementations may carry."""
    if not x1.dtype.is_floating_point or x1.numel() == 0 or x2.numel() == 0:
        return 0.0
    finite = [t.double()[t.double().isfinite()] for t in (x1, x2)]
    scale = max([float(t.abs().max()) for t in finite if t.numel()] + [1.0])
    columns = x1.shape[-1]
    eps = torch.finfo(x1.dtype).eps
    if matmul:
        return 4 * math.sqrt((columns + 2) * eps) * scale * math.sqrt(max(columns, 1))
    return 8 * columns * eps * scale


@SETTINGS
@given(data=st.data())
def test_cdist_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from([torch.float32, torch.float64]))
    if data.draw(st.integers(0, 6)) == 0:
        dtype = data.draw(dtypes)
    batch1 = data.draw(st.lists(st.integers(0, 3), max_size=2))
    batch2 = list(batch1[data.draw(st.integers(0, len(batch1))) :])
    batch2 = [1 if data.draw(st.booleans()) else s for s in batch2]
    if data.draw(st.booleans()):
        batch1, batch2 = batch2, batch1
    r1, r2 = data.draw(st.integers(0, 30)), data.draw(st.integers(0, 30))
    m = data.draw(st.integers(0, 6))
    seed = data.draw(st.integers(0, 2**31 - 1))
    p = data.draw(st.sampled_from(NORMS))
    mode = data.draw(st.sampled_from([None, 0, 1, 2]))
    # ATen's 16-bit matrix product (a BLAS routine) can turn an infinity into NaN where the sum
    # itself is infinite: no NaN or infinities there.
    sixteen_bit = dtype in (torch.float16, torch.bfloat16)
    special = data.draw(st.integers(0, 5)) == 0
    special = special and not (sixteen_bit and uses_matmul(p, mode, r1, r2))
    x1 = make_tensor(dtype, (*batch1, r1, m), seed, special=special, magnitude=2.0)
    x2 = make_tensor(dtype, (*batch2, r2, m), seed + 1, special=special, magnitude=2.0)
    out = data.draw(out_tensors(dtype, (0,), other_dtype_p=0.1))
    atol = tolerance(x1, x2, uses_matmul(p, mode, r1, r2))
    check_op(call_op, NAME, OP, (x1, x2, p, mode), out=out, atol=atol)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("mode", [None, 1, 2])
def test_cdist_large(call_op: Any, dtype: torch.dtype, mode: int | None) -> None:
    x1 = make_tensor(dtype, (2, 40, 16), 1, magnitude=1.0)
    x2 = make_tensor(dtype, (1, 50, 16), 2, magnitude=1.0)
    for p in (2.0, 1.0):
        atol = tolerance(x1, x2, uses_matmul(p, mode, 40, 50))
        if dtype in (torch.float16, torch.bfloat16):
            atol += 2 * torch.finfo(dtype).eps * 8  # the product's result rounds to the dtype
        check_op(call_op, NAME, OP, (x1, x2, p, mode), out=torch.empty(0, dtype=dtype), atol=atol)


def test_cdist_inf_norm_skips_nan(call_op: Any) -> None:
    # ATen's scalar max keeps the running value when it meets NaN.
    y = torch.tensor([[0.0, 1.0], [float("nan"), 2.0], [1.0, float("inf")]])
    for p in NORMS:
        check_op(call_op, NAME, OP, (y, y, p, 2), out=torch.empty(0))


ones = torch.ones


@pytest.mark.parametrize(
    ("x1", "x2", "p", "mode"),
    [
        (ones(4), ones(3, 4), 2.0, None),  # 1-d
        (ones(3, 4), ones(4), 2.0, None),
        (ones(3, 4), ones(3, 5), 2.0, None),  # columns differ
        (ones(2, 3, 4), ones(3, 3, 4), 2.0, None),  # batch dims do not broadcast
        (ones(3, 4), ones(3, 4), -1.0, None),
        (ones(3, 4), ones(3, 4), 2.0, 3),
        (ones(3, 4), ones(3, 4), 2.0, -1),
        (ones(3, 4, dtype=torch.int32), ones(3, 4, dtype=torch.int32), 2.0, None),
        (ones(3, 4), ones(3, 4, dtype=torch.float64), 2.0, None),
        (ones(3, 4, dtype=torch.float16), ones(3, 4, dtype=torch.float16), 1.0, None),
        (ones(3, 4, dtype=torch.float16), ones(3, 4, dtype=torch.float16), 2.0, 2),
    ],
)
def test_cdist_refusals(
    call_op: Any, x1: torch.Tensor, x2: torch.Tensor, p: float, mode: int | None
) -> None:
    check_op(call_op, NAME, OP, (x1, x2, p, mode), out=torch.empty(0, dtype=x1.dtype))
