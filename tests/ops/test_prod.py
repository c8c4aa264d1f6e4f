"""aten::prod.int_out and aten::prod.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, check_op, is_portable
from strategies import ALL_DTYPES, INT_DTYPES, dtypes, out_like, shapes, tensors

import kiln

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def default_dtype(dtype: torch.dtype) -> torch.dtype:
    return dtype if dtype.is_floating_point else torch.int64


def check_rounded_once(
    call_op: Any,
    name: str,
    torch_op: Any,
    args: tuple[Any, ...],
    prod_dtype: torch.dtype | None,
    out_dtype: torch.dtype,
) -> bool:
    """For a Half or BFloat16 product into its own dtype on Kiln's kernels, where torch accepts
    the arguments: checks the result against the product rounded once and returns True. ATen
    rounds every partial product to 16 bits (so it can overflow to inf midway, and inf * 0 is
    NaN); Kiln multiplies in wider precision and rounds once (test_prod_long_rows_and_columns)."""
    a = args[0]
    compute = prod_dtype or default_dtype(a.dtype)
    reduced = compute in (torch.float16, torch.bfloat16)
    if not is_portable(call_op) or not reduced or out_dtype != compute:
        return False
    try:
        torch_op(*args, dtype=prod_dtype, out=out_like(out_dtype, None))
    except (RuntimeError, IndexError):
        return False  # check_op checks that Kiln refuses them too
    got = call_op(name, *args, dtype=prod_dtype, out=out_like(out_dtype, None))
    wide = a.to(compute).double()
    once = wide.prod(*args[1:]) if len(args) > 1 else wide.prod()
    assert_same(got, once.to(compute))
    return True


@SETTINGS
@given(data=st.data())
def test_prod_dim_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(dtypes)
    prod_dtype = data.draw(st.one_of(st.none(), dtypes))
    out_dtype = prod_dtype or default_dtype(dtype)
    if data.draw(st.integers(0, 4)) == 0:
        out_dtype = data.draw(dtypes)
    # Values near 1 keep float products in range; integer products wrap like ATen's.
    integral = not out_dtype.is_floating_point
    special = False if integral else data.draw(st.booleans())
    a = data.draw(tensors(dtype, shapes(0, 4, 0, 5), magnitude=1.5, special=special))
    rank = max(a.dim(), 1)
    dim = data.draw(st.integers(-rank - 1, rank))
    keepdim = data.draw(st.booleans())
    args = (a, dim, keepdim)
    if check_rounded_once(
        call_op, "aten::prod.int_out", aten.prod.int_out, args, prod_dtype, out_dtype
    ):
        return
    check_op(
        call_op,
        "aten::prod.int_out",
        aten.prod.int_out,
        args,
        {"dtype": prod_dtype},
        out=out_like(out_dtype, None),
    )


@SETTINGS
@given(data=st.data())
def test_prod_all_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(dtypes)
    prod_dtype = data.draw(st.one_of(st.none(), dtypes))
    out_dtype = prod_dtype or default_dtype(dtype)
    special = False if not out_dtype.is_floating_point else data.draw(st.booleans())
    a = data.draw(tensors(dtype, shapes(0, 3, 0, 4), magnitude=1.2, special=special))
    if check_rounded_once(call_op, "aten::prod.out", aten.prod.out, (a,), prod_dtype, out_dtype):
        return
    check_op(
        call_op,
        "aten::prod.out",
        aten.prod.out,
        (a,),
        {"dtype": prod_dtype},
        out=out_like(out_dtype, None),
    )


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_prod_long_rows_and_columns(call_op: Any, dtype: torch.dtype) -> None:
    gen = torch.Generator().manual_seed(5)
    # (701, 19) on dim 0: columns combine four rows at a time, then the 701st alone; 19 is
    # vectors of eight and a tail.
    for shape, dim in [((3, 700), 1), ((700, 3), 0), ((5, 300, 2), 1), ((701, 19), 0)]:
        if dtype.is_floating_point:
            a = (1 + 0.001 * torch.randn(shape, generator=gen)).to(dtype)
        else:
            a = torch.randint(0, 3, shape, generator=gen).to(dtype)
        portable = is_portable(call_op)
        if portable and dtype in (torch.float16, torch.bfloat16):
            # ATen rounds every partial product to 16 bits (its error grows with the length);
            # Kiln multiplies in wider precision and rounds once, so compare with that.
            out = call_op("aten::prod.int_out", a, dim, out=torch.empty(0, dtype=dtype))
            assert_same(out, a.double().prod(dim).to(dtype))
            continue
        check_op(
            call_op,
            "aten::prod.int_out",
            aten.prod.int_out,
            (a, dim, False),
            out=out_like(default_dtype(dtype), None),
        )


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_prod_wrapping_integer_rows(call_op: Any, dtype: torch.dtype) -> None:
    # Odd factors never reach 0, so a product of hundreds wraps through every bit of the lanes
    # and of their halving fold; wrapping products do not depend on the order of the factors.
    gen = torch.Generator().manual_seed(11)
    factors = torch.tensor([-1, 1, 3])
    a = factors[torch.randint(0, 3, (4, 203), generator=gen)].to(dtype)
    for out_dtype in (dtype, torch.int64):
        check_op(
            call_op,
            "aten::prod.int_out",
            aten.prod.int_out,
            (a, 1, False),
            {"dtype": out_dtype},
            out=out_like(out_dtype, None),
        )
        check_op(
            call_op,
            "aten::prod.out",
            aten.prod.out,
            (a,),
            {"dtype": out_dtype},
            out=out_like(out_dtype, None),
        )


def test_prod_of_nothing_is_one(call_op: Any) -> None:
    out = call_op("aten::prod.int_out", torch.ones(2, 0), 1, out=torch.empty(0))
    torch.testing.assert_close(out, torch.ones(2))


def test_prod_dtype_mismatch(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="(?i)expected out tensor to have dtype double"):
        call_op("aten::prod.out", torch.ones(2), dtype=torch.float64, out=torch.empty(0))
