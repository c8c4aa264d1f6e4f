"""aten::view_as_real_copy.out against torch: complex tensors (ComplexHalf, ComplexFloat,
ComplexDouble) as (real, imaginary) pairs of their value type."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
from strategies import make_tensor, out_tensors, seeds, shapes

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
VIEW_AS_REAL = "aten::view_as_real_copy.out"
COMPLEX = {torch.complex32: torch.float16, torch.complex64: torch.float32}
COMPLEX[torch.complex128] = torch.float64


def complex_tensor(dtype: torch.dtype, shape: tuple[int, ...], seed: int) -> torch.Tensor:
    parts = make_tensor(torch.float64, (*shape, 2), seed, special=seed % 3 == 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch calls ComplexHalf experimental
        return torch.view_as_complex(parts).to(dtype)


@SETTINGS
@given(data=st.data())
def test_view_as_real_copy_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(list(COMPLEX)))
    shape = data.draw(shapes(0, 4, 0, 5))
    a = complex_tensor(dtype, shape, data.draw(seeds))
    out = data.draw(out_tensors(COMPLEX[dtype], (*shape, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_op(call_op, VIEW_AS_REAL, aten.view_as_real_copy.out, (a,), out=out)


@pytest.mark.parametrize(
    ("dtype", "out_dtype", "text"),
    [
        (torch.float32, torch.float32, "only supported for complex tensors"),
        (torch.complex64, torch.float64, "Expected out tensor to have dtype Float, but got Double"),
        (torch.complex128, torch.complex128, "to have dtype Double, but got ComplexDouble"),
    ],
)
def test_view_as_real_copy_refusals(
    call_op: Any, dtype: torch.dtype, out_dtype: torch.dtype, text: str
) -> None:
    a = torch.ones(2, 3, dtype=dtype)
    with pytest.raises(RuntimeError):
        aten.view_as_real_copy.out(a, out=torch.empty(0, dtype=out_dtype))
    with raises(call_op, text):
        call_op(VIEW_AS_REAL, a, out=torch.empty(0, dtype=out_dtype))
