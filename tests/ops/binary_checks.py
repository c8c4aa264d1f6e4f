"""Differential checks shared by the binary elementwise op tests (Tensor and Scalar overloads)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from op_compare import check_op, is_portable, raises  # noqa: F401 (re-exported)
from strategies import any_scalars, broadcastable_shapes, dtypes, out_tensors, tensors

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ResultDtype = Callable[[Any, Any], torch.dtype]


def promoted(a: Any, b: Any) -> torch.dtype:
    return torch.result_type(a, b)


def floating(a: Any, b: Any) -> torch.dtype:
    """The result dtype of ops that compute integers in the default floating dtype."""
    result = torch.result_type(a, b)
    return result if result.is_floating_point else torch.get_default_dtype()


def boolean(a: Any, b: Any) -> torch.dtype:
    return torch.bool


def draw_pair(
    data: Any, dtype_pool: Any = dtypes, other_int_range: tuple[int, int] | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Two broadcastable tensors; half the time of one dtype, else of two (promotion)."""
    shape_a, shape_b = data.draw(broadcastable_shapes())
    dtype_a = data.draw(dtype_pool)
    dtype_b = dtype_a if data.draw(st.booleans()) else data.draw(dtype_pool)
    a = data.draw(tensors(dtype_a, shape_a))
    b = data.draw(tensors(dtype_b, shape_b, int_range=other_int_range))
    return a, b


def check_tensor_tensor(
    call_op: Any,
    data: Any,
    name: str,
    torch_op: Any,
    *,
    result: ResultDtype = promoted,
    dtype_pool: Any = dtypes,
    other_int_range: tuple[int, int] | None = None,
    kwargs: dict[str, Any] | None = None,
    atol: float = 0.0,
    ints_to_float: bool = False,
) -> None:
    a, b = draw_pair(data, dtype_pool, other_int_range)
    shape = tuple(torch.broadcast_shapes(a.shape, b.shape))
    out = data.draw(out_tensors(result(a, b), shape))
    check_op(
        call_op, name, torch_op, (a, b), kwargs, out=out, atol=atol, ints_to_float=ints_to_float
    )


def check_tensor_scalar(
    call_op: Any,
    data: Any,
    name: str,
    torch_op: Any,
    *,
    result: ResultDtype = promoted,
    dtype_pool: Any = dtypes,
    scalars: Any = any_scalars,
    kwargs: dict[str, Any] | None = None,
    atol: float = 0.0,
) -> None:
    a = data.draw(tensors(data.draw(dtype_pool)))
    other = data.draw(scalars)
    out = data.draw(out_tensors(result(a, other), tuple(a.shape)))
    check_op(call_op, name, torch_op, (a, other), kwargs, out=out, atol=atol)


small_scalars = st.one_of(
    st.booleans(), st.integers(-4, 4), st.floats(-8, 8, width=32), st.sampled_from([0, 0.0, -0.0])
)
