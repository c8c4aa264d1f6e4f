"""aten::argmax.out and aten::argmin.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import ALL_DTYPES, INT_DTYPES, dtypes, make_tensor, out_tensors, shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
OPS = [("aten::argmax.out", aten.argmax.out), ("aten::argmin.out", aten.argmin.out)]


@pytest.mark.parametrize(("name", "torch_op"), OPS)
@SETTINGS
@given(data=st.data())
def test_argmax_argmin_match_torch(call_op: Any, name: str, torch_op: Any, data: Any) -> None:
    dtype = data.draw(dtypes)
    # Few distinct values so ties (first index wins) are common.
    a = data.draw(tensors(dtype, shapes(0, 4, 0, 5), magnitude=1.0, int_range=(-2, 2)))
    if dtype.is_floating_point and data.draw(st.booleans()):
        a = a.round()
    rank = max(a.dim(), 1)
    dim = data.draw(st.one_of(st.none(), st.integers(-rank - 1, rank)))
    out = data.draw(out_tensors(torch.int64, (), other_dtype_p=0.1))
    check_op(call_op, name, torch_op, (a, dim, data.draw(st.booleans())), out=out)


@pytest.mark.parametrize(("name", "torch_op"), OPS)
@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d != torch.bool])
def test_argmax_long_rows_and_columns(
    call_op: Any, name: str, torch_op: Any, dtype: torch.dtype
) -> None:
    for shape, dim in [((3, 1000), 1), ((1000, 3), 0), ((6, 300, 5), 1), ((40, 40), None)]:
        a = make_tensor(dtype, shape, 11, special=True, int_range=(-100, 100))
        check_op(call_op, name, torch_op, (a, dim), out=torch.empty(0, dtype=torch.int64))


def test_argmax_nan_and_ties(call_op: Any) -> None:
    nan = float("nan")
    rows = [[1.0, 3.0, 3.0, 2.0], [1.0, nan, 3.0, nan], [-1.0, -1.0, -1.0, -1.0]]
    a = torch.tensor(rows * 70)
    for dim in (0, 1, None):
        for name, torch_op in OPS:
            check_op(call_op, name, torch_op, (a, dim), out=torch.empty(0, dtype=torch.int64))
            check_op(
                call_op,
                name,
                torch_op,
                (a.T.contiguous(), dim),
                out=torch.empty(0, dtype=torch.int64),
            )


@pytest.mark.parametrize(
    ("a", "dim", "out_dtype", "match"),
    [
        (torch.ones(0, 3), None, torch.int64, "Expected reduction dim to be specified"),
        (torch.ones(0, 3), 0, torch.int64, "Expected reduction dim 0 to have non-zero size"),
        (torch.ones(3, dtype=torch.bool), 0, torch.int64, "does not support bool"),
        (torch.ones(3), 0, torch.int32, "(?i)expected out tensor to have dtype long"),
        (torch.ones(3), 1, torch.int64, "Dimension out of range"),
    ],
)
def test_argmax_errors(
    call_op: Any, a: torch.Tensor, dim: Any, out_dtype: torch.dtype, match: str
) -> None:
    with pytest.raises((RuntimeError, IndexError)):
        aten.argmax.out(a, dim, out=torch.empty(0, dtype=out_dtype))
    with pytest.raises(kiln.KilnError, match=match):
        call_op("aten::argmax.out", a, dim, out=torch.empty(0, dtype=out_dtype))


def test_argmin_of_integers(call_op: Any) -> None:
    for dtype in INT_DTYPES:
        a = make_tensor(dtype, (7, 9), 2)
        check_op(
            call_op,
            "aten::argmin.out",
            aten.argmin.out,
            (a, 1),
            out=torch.empty(0, dtype=torch.int64),
        )
