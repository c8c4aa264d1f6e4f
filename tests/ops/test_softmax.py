"""aten::_softmax.out and aten::_log_softmax.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, magnitude, raises
from strategies import FLOAT_DTYPES, dtypes, make_tensor, out_tensors, shapes, tensors

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


OPS = [
    ("aten::_softmax.out", aten._softmax.out),
    ("aten::_log_softmax.out", aten._log_softmax.out),
]


@pytest.mark.parametrize(("name", "torch_op"), OPS)
@SETTINGS
@given(data=st.data())
def test_softmax_matches_torch(call_op: Any, name: str, torch_op: Any, data: Any) -> None:
    # Mostly floating inputs; sometimes another dtype, which both must reject.
    dtype = (
        data.draw(st.sampled_from(FLOAT_DTYPES))
        if data.draw(st.integers(0, 5))
        else data.draw(dtypes)
    )
    a = data.draw(tensors(dtype, shapes(0, 4, 0, 6)))
    rank = max(a.dim(), 1)
    dim = data.draw(st.integers(-rank - 1, rank))  # one beyond each end is out of range
    half_to_float = data.draw(st.integers(0, 9)) == 0
    out = data.draw(out_tensors(a.dtype, tuple(a.shape), other_dtype_p=0.1))
    atol = 1e-5
    if "log" in name and dtype in (torch.float16, torch.bfloat16):
        # ATen's 16-bit log_softmax loses bits of x - max - log(sum) in proportion to |x|.
        atol += 0.5 * torch.finfo(dtype).eps * magnitude(a)
    check_op(call_op, name, torch_op, (a, dim, half_to_float), out=out, atol=atol)


@pytest.mark.parametrize(("name", "torch_op"), OPS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize(("shape", "dim"), [((3, 1000), 1), ((300, 3, 2), 0), ((2, 700, 5), -2)])
def test_softmax_long_rows_and_columns(
    call_op: Any, name: str, torch_op: Any, dtype: torch.dtype, shape: tuple, dim: int
) -> None:
    a = make_tensor(dtype, shape, 14, magnitude=5.0)
    check_op(
        call_op,
        name,
        torch_op,
        (a, dim, False),
        out=torch.empty(0, dtype=dtype),
        atol=1e-6,
    )


@pytest.mark.parametrize(("name", "torch_op"), OPS)
def test_softmax_nan_inf_rows(call_op: Any, name: str, torch_op: Any) -> None:
    inf, nan = float("inf"), float("nan")
    a = torch.tensor([[1.0, nan, 2.0], [1.0, inf, 2.0], [-inf, -inf, -inf], [-inf, 0.0, 1.0]])
    check_op(call_op, name, torch_op, (a, 1, False), out=torch.empty(0))
    check_op(call_op, name, torch_op, (a.T.contiguous(), 0, False), out=torch.empty(0))


@pytest.mark.parametrize(
    ("a", "dim", "half_to_float", "match"),
    [
        (torch.ones(2, 3), 2, False, "Dimension out of range"),
        (torch.ones(()), 1, False, "Dimension out of range"),
        (torch.ones(2, dtype=torch.int64), 0, False, "not implemented for dtype Long"),
        (torch.ones(2, dtype=torch.float16), 0, True, "half to float"),
    ],
)
def test_softmax_errors(
    call_op: Any, a: torch.Tensor, dim: int, half_to_float: bool, match: str
) -> None:
    out = torch.empty(0, dtype=torch.float32 if half_to_float else a.dtype)
    with pytest.raises((RuntimeError, IndexError, NotImplementedError)):
        aten._softmax.out(a, dim, half_to_float, out=out.clone())
    with raises(call_op, match):
        call_op("aten::_softmax.out", a, dim, half_to_float, out=out)


def test_log_softmax_rejects_integers(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="(?i)not implemented for"):
        call_op(
            "aten::_log_softmax.out",
            torch.ones(2, dtype=torch.int32),
            0,
            False,
            out=torch.empty(0, dtype=torch.int32),
        )
