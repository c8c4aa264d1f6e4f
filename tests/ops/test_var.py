"""aten::var (.correction_out, .out), aten::std.correction_out and aten::var_mean.correction_out
against torch."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, check_op
from strategies import FLOAT_DTYPES, dtypes, make_tensor, out_like, shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
OPS = [
    ("aten::var.correction_out", aten.var.correction_out),
    ("aten::std.correction_out", aten.std.correction_out),
]


@st.composite
def dim_lists(draw: Any, rank: int) -> list[int] | None:
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return None
    extent = max(rank, 1)
    if choice == 1:
        return draw(st.lists(st.integers(-extent - 1, extent), max_size=3))
    dims = draw(st.lists(st.integers(0, extent - 1), unique=True, max_size=extent))
    return [d - extent if draw(st.booleans()) else d for d in dims]


@pytest.mark.parametrize(("name", "torch_op"), OPS)
@SETTINGS
@given(data=st.data())
def test_var_std_match_torch(call_op: Any, name: str, torch_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES) if data.draw(st.integers(0, 5)) else dtypes)
    a = data.draw(tensors(dtype, shapes(0, 4, 0, 5)))
    dim = data.draw(dim_lists(a.dim()))
    correction = data.draw(
        st.one_of(st.none(), st.integers(0, 3), st.floats(0, 2, allow_nan=False, width=32))
    )
    out_dtype = dtype if data.draw(st.integers(0, 4)) else data.draw(dtypes)
    kwargs = {"correction": correction, "keepdim": data.draw(st.booleans())}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns when correction >= the count
        check_op(
            call_op, name, torch_op, (a, dim), kwargs, out=out_like(out_dtype, None), atol=1e-6
        )


@pytest.mark.parametrize(("name", "torch_op"), OPS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_var_std_long_and_offset(
    call_op: Any, name: str, torch_op: Any, dtype: torch.dtype
) -> None:
    for shape, dim in [((3, 1000), [1]), ((1000, 3), [0]), ((6, 300, 5), [0, 2]), ((40, 40), None)]:
        # A large offset: a one-pass sum of squares would cancel badly here.
        a = (make_tensor(torch.float64, shape, 6, magnitude=1.0) + 1000).to(dtype)
        check_op(call_op, name, torch_op, (a, dim), out=torch.empty(0, dtype=dtype), atol=1e-6)


@pytest.mark.parametrize(("name", "torch_op"), OPS)
@pytest.mark.parametrize(
    ("dtype", "out_dtype"),
    [
        (torch.float32, torch.float16),
        (torch.float16, torch.bfloat16),
        (torch.float64, torch.bfloat16),
        (torch.float16, torch.float32),
    ],
)
def test_var_std_convert_the_input_to_the_out_dtype_first(
    call_op: Any, name: str, torch_op: Any, dtype: torch.dtype, out_dtype: torch.dtype
) -> None:
    # Values near 1000 that differ in digits a narrower out dtype drops (its step there is 0.5 to
    # 4): ATen converts them to the out dtype before reducing, which changes the spread far more
    # than the tolerance, so computing on the input's own values would fail here.
    a = (make_tensor(torch.float64, (64, 5), 9, magnitude=1.0) + 1000).to(dtype)
    check_op(call_op, name, torch_op, (a, [0]), out=torch.empty(0, dtype=out_dtype), atol=0)


def test_var_rejects_integers(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="only support floating point"):
        call_op(
            "aten::var.correction_out", torch.ones(3, dtype=torch.int32), [0], out=torch.empty(0)
        )


@SETTINGS
@given(data=st.data())
def test_var_unbiased_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES) if data.draw(st.integers(0, 5)) else dtypes)
    a = data.draw(tensors(dtype, shapes(0, 4, 0, 5)))
    dim = data.draw(dim_lists(a.dim()))
    out_dtype = dtype if data.draw(st.integers(0, 4)) else data.draw(dtypes)
    args = (a, dim, data.draw(st.booleans()), data.draw(st.booleans()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_op(
            call_op, "aten::var.out", aten.var.out, args, out=out_like(out_dtype, None), atol=1e-6
        )


def check_var_mean(call_op: Any, args: tuple, kwargs: dict, outs: tuple, atol: float) -> None:
    """var_mean has two outs, which check_op does not take: the same checks by hand."""
    torch_outs = tuple(o.clone() for o in outs)
    kiln_outs = tuple(o.clone() for o in outs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            aten.var_mean.correction_out(*args, **kwargs, out0=torch_outs[0], out1=torch_outs[1])
        except (RuntimeError, IndexError):
            with pytest.raises(kiln.KilnError):
                call_op("aten::var_mean.correction_out", *args, **kwargs, out=kiln_outs)
            return
    result = call_op("aten::var_mean.correction_out", *args, **kwargs, out=kiln_outs)
    assert all(r is k for r, k in zip(result, kiln_outs, strict=True))
    for actual, expected in zip(kiln_outs, torch_outs, strict=True):
        assert_same(actual, expected, atol=atol)


@SETTINGS
@given(data=st.data())
def test_var_mean_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES) if data.draw(st.integers(0, 5)) else dtypes)
    a = data.draw(tensors(dtype, shapes(0, 4, 0, 5)))
    dim = data.draw(dim_lists(a.dim()))
    correction = data.draw(st.one_of(st.none(), st.integers(0, 3), st.floats(0, 2, width=32)))
    kwargs = {"correction": correction, "keepdim": data.draw(st.booleans())}
    out_dtypes = [dtype if data.draw(st.integers(0, 6)) else data.draw(dtypes) for _ in range(2)]
    outs = tuple(out_like(d, None) for d in out_dtypes)
    check_var_mean(call_op, (a, dim), kwargs, outs, atol=1e-6)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_var_mean_long_and_offset(call_op: Any, dtype: torch.dtype) -> None:
    for shape, dim in [((3, 1000), [1]), ((6, 300, 5), [0, 2]), ((40, 40), None)]:
        a = (make_tensor(torch.float64, shape, 7, magnitude=1.0) + 1000).to(dtype)
        outs = (torch.empty(0, dtype=dtype), torch.empty(0, dtype=dtype))
        check_var_mean(call_op, (a, dim), {}, outs, atol=1e-6)
