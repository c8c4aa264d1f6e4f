"""aten::sum.IntList_out against torch."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, backend_of, check_op, eps
from strategies import ALL_DTYPES, dtypes, make_tensor, out_like, shapes, tensors

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def sum_atol(a: torch.Tensor, dtype: torch.dtype) -> float:
    """Room for summation order: a few ulps of the sum of magnitudes."""
    if not dtype.is_floating_point or a.numel() == 0:
        return 0.0
    finite = a.double()[torch.isfinite(a.double())]
    total = float(finite.abs().sum()) if finite.numel() else 0.0
    return 4 * eps(dtype) * total + 4 * eps(torch.float32) * total


def summands(data: Any, dtype: torch.dtype, shape: Any, out_dtype: torch.dtype, special: bool):
    """A tensor to sum. Integers summed into Half stay small enough that the sum does too: torch
    keeps Half partial sums, which past 65504 overflow to infinities of either sign and meet as
    NaN (test_sum_overflowing_half checks Kiln's result there)."""
    drawn = data.draw(shape)
    int_range = None
    if out_dtype == torch.float16 and not dtype.is_floating_point:
        bound = max(1, 65504 // max(1, math.prod(drawn)))
        int_range = (-bound, bound)
    return data.draw(tensors(dtype, drawn, magnitude=50.0, special=special, int_range=int_range))


@st.composite
def dim_lists(draw: Any, rank: int) -> list[int] | None:
    """None, [] or a list of dims (negative ones too), sometimes repeated or out of range."""
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return None
    extent = max(rank, 1)
    if choice == 1:
        return draw(st.lists(st.integers(-extent - 1, extent), max_size=3))  # may be invalid
    dims = draw(st.lists(st.integers(0, extent - 1), unique=True, max_size=extent))
    return [d - extent if draw(st.booleans()) else d for d in dims]


@SETTINGS
@given(data=st.data())
def test_sum_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(dtypes)
    sum_dtype = data.draw(st.one_of(st.none(), dtypes))
    if data.draw(st.booleans()):
        # The default result dtype: integers and bool sum to int64.
        out_dtype = sum_dtype or (dtype if dtype.is_floating_point else torch.int64)
    else:
        out_dtype = data.draw(dtypes)
    # Moderate floats so float-to-integer conversions stay in range; nan and inf only where the
    # sum stays floating (converting them to integers is undefined in C++ and differs by width).
    integral_sum = not (sum_dtype or out_dtype).is_floating_point
    special = False if integral_sum else data.draw(st.booleans())
    a = summands(data, dtype, shapes(0, 4, 0, 5), out_dtype, special)
    dim = data.draw(dim_lists(a.dim()))
    keepdim = data.draw(st.booleans())
    out = out_like(out_dtype, None)
    check_op(
        call_op,
        "aten::sum.IntList_out",
        aten.sum.IntList_out,
        (a, dim, keepdim),
        {"dtype": sum_dtype},
        out=out,
        atol=sum_atol(a, out_dtype),
    )


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize(
    ("shape", "dim"),
    [
        ((4, 600), [1]),
        ((600, 3), [0]),
        ((3, 5, 300), [0, 2]),
        ((7, 3, 2, 70), [1, 3]),
        ((300, 300), None),
    ],
)
def test_sum_long_reductions(call_op: Any, dtype: torch.dtype, shape: tuple, dim: Any) -> None:
    a = make_tensor(dtype, shape, 15, magnitude=3.0, int_range=(-50, 50))
    # Integers sum into int64 (the default) and into their own dtype, where the total wraps.
    for out_dtype in {dtype, torch.int64 if not dtype.is_floating_point else dtype}:
        check_op(
            call_op,
            "aten::sum.IntList_out",
            aten.sum.IntList_out,
            (a, dim, False),
            {"dtype": out_dtype},
            out=torch.empty(0, dtype=out_dtype),
            atol=sum_atol(a, out_dtype),
        )


INT_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def full_range(dtype: torch.dtype, shape: tuple, seed: int) -> torch.Tensor:
    """Values spread over the whole dtype (bool: 0/1), so totals overflow narrow dtypes."""
    gen = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen).bool()
    info = torch.iinfo(dtype)
    low, high = max(info.min, -(2**40)), min(info.max, 2**40)
    return torch.randint(low, high + 1, shape, generator=gen, dtype=torch.int64).to(dtype)


# Lengths across the 1024-element blocks and around multiples of the 16/32/64 lane counts:
# widening loops are easy to get wrong (GCC 12 miscompiled one) only for long runs and tails.
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_sum_integers_long_runs_and_columns(call_op: Any, dtype: torch.dtype) -> None:
    cases = [((3, n), [1]) for n in (1023, 1024, 1025, 1040, 1087, 2079, 3137)]
    cases += [((n, 300), [0]) for n in (1025, 2049)] + [((1030, 2, 33), [0, 1])]
    for i, (shape, dim) in enumerate(cases):
        a = full_range(dtype, shape, i)
        # Into int64 (the default), and into its own dtype, where ATen's total wraps.
        for out_dtype in dict.fromkeys((dtype, torch.int64)):
            check_op(
                call_op,
                "aten::sum.IntList_out",
                aten.sum.IntList_out,
                (a, dim, False),
                {"dtype": out_dtype},
                out=torch.empty(0, dtype=out_dtype),
            )


def check_column_sums(call_op: Any, a: torch.Tensor, own_dtype: torch.dtype) -> None:
    """sum over dim 0 of `a` into `own_dtype` and into float32, against torch."""
    for out_dtype in dict.fromkeys((own_dtype, torch.float32)):
        check_op(
            call_op,
            "aten::sum.IntList_out",
            aten.sum.IntList_out,
            (a, [0], False),
            {"dtype": out_dtype},
            out=torch.empty(0, dtype=out_dtype),
            atol=sum_atol(a, out_dtype),
        )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_sum_float_columns_past_a_block(call_op: Any, dtype: torch.dtype) -> None:
    # More rows than one float block (1024), so block totals go through the double totals.
    a = make_tensor(dtype, (2100, 300), 3, magnitude=3.0, int_range=(-50, 50))
    check_column_sums(call_op, a, dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("rows", [1, 3, 6, 1027])
def test_sum_columns_in_groups_of_rows(call_op: Any, dtype: torch.dtype, rows: int) -> None:
    # Columns add four rows at a time, then the rows left over one by one; 37 columns are vectors
    # of eight and a tail. Specials in the first, the last and a middle row of some columns.
    a = make_tensor(dtype, (rows, 37), 7, magnitude=3.0, int_range=(-50, 50))
    if dtype.is_floating_point:
        a[rows - 1, 0] = float("nan")
        a[rows // 2, 9] = float("inf")
        a[0, 17] = -float("inf")
        a[0, 30] = float("inf")
        a[rows - 1, 30] = -float("inf")  # inf - inf: nan, or -inf on a single row
    check_column_sums(call_op, a, dtype if dtype.is_floating_point else torch.int64)


@pytest.mark.parametrize("length", [1, 31, 32, 33, 1023, 1024, 1025, 5000])
def test_half_row_sums_match_the_float_rows(call_op: Any, length: int) -> None:
    # Half rows convert inside the summing loop (F16C or AVX-512 on x86-64-v3 CPUs) in the float
    # rows' lanes and order, so on the portable kernels a Half sum, mean or product into float32
    # is bit for bit that of the same values as float32. Specials in some rows.
    a = make_tensor(torch.float16, (5, length), 9, magnitude=3.0)
    a[1, length // 2] = float("nan")
    a[2, 0] = float("inf")
    a[3, length - 1] = -float("inf")
    near_one = make_tensor(torch.float16, (3, length), 10, magnitude=0.05) + 1
    for name, torch_op, x, args in [
        ("aten::sum.IntList_out", aten.sum.IntList_out, a, ([1],)),
        ("aten::mean.out", aten.mean.out, a, ([1],)),
        ("aten::prod.int_out", aten.prod.int_out, near_one, (1,)),
    ]:
        kwargs = {"dtype": torch.float32}
        atol = sum_atol(x, torch.float32)
        check_op(call_op, name, torch_op, (x, *args), kwargs, out=torch.empty(0), atol=atol)
        if backend_of(call_op) == "portable":
            got = call_op(name, x, *args, out=torch.empty(0), **kwargs)
            same = call_op(name, x.float(), *args, out=torch.empty(0))
            assert torch.equal(got.nan_to_num(7.0), same.nan_to_num(7.0)), name


def test_sum_casts_each_element_before_summing(call_op: Any) -> None:
    # ATen converts the input to the sum dtype first: 0.5 and 0.25 are each True as bool, and
    # 100.7 + 100.7 in int8 is int8(100) + int8(100), which wraps.
    cases = [
        (torch.tensor([0.5, 0.25]), torch.bool),
        (torch.tensor([1, -1]), torch.bool),
        (torch.tensor([100.7, 100.7]), torch.int8),
        (torch.tensor([1.0001, 1.0001]), torch.float16),
    ]
    for a, dtype in cases:
        check_op(
            call_op,
            "aten::sum.IntList_out",
            aten.sum.IntList_out,
            (a, [0], False),
            {"dtype": dtype},
            out=torch.empty(0, dtype=dtype),
        )


def test_sum_empty_input_gives_zeros(call_op: Any) -> None:
    a = torch.ones(2, 0, 3)
    out = call_op("aten::sum.IntList_out", a, [1], False, out=torch.empty(0))
    torch.testing.assert_close(out, torch.zeros(2, 3))


@pytest.mark.parametrize(
    ("shape", "dim", "sum_dtype", "out_dtype", "match"),
    [
        ((2, 3), [1, -1], None, torch.float32, "dim 1 appears multiple times"),
        ((), [0, 0], None, torch.float32, "dim 0 appears multiple times"),
        ((2, 3), [2], None, torch.float32, "Dimension out of range"),
        ((2, 3), [-3], None, torch.float32, "Dimension out of range"),
        (
            (2, 3),
            [0],
            torch.float64,
            torch.float32,
            "(?i)expected out tensor to have dtype double, but got float",
        ),
    ],
)
def test_sum_errors(
    call_op: Any, shape: tuple, dim: list[int], sum_dtype: Any, out_dtype: torch.dtype, match: str
) -> None:
    a = torch.ones(shape)
    with pytest.raises((RuntimeError, IndexError)):
        aten.sum.IntList_out(a, dim, False, dtype=sum_dtype, out=torch.empty(0, dtype=out_dtype))
    with pytest.raises(kiln.KilnError, match=match):
        call_op(
            "aten::sum.IntList_out",
            a,
            dim,
            False,
            dtype=sum_dtype,
            out=torch.empty(0, dtype=out_dtype),
        )


@SETTINGS
@given(data=st.data())
def test_sum_all_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(dtypes)
    sum_dtype = data.draw(st.one_of(st.none(), dtypes))
    out_dtype = sum_dtype or (dtype if dtype.is_floating_point else torch.int64)
    special = out_dtype.is_floating_point and data.draw(st.booleans())
    a = summands(data, dtype, shapes(0, 3, 0, 40), out_dtype, special)
    check_op(
        call_op,
        "aten::sum.out",
        aten.sum.out,
        (a,),
        {"dtype": sum_dtype},
        out=out_like(out_dtype, (3,) if data.draw(st.booleans()) else None),
        atol=sum_atol(a, out_dtype),
    )


@pytest.mark.parametrize("sign", [1, -1])
def test_sum_overflowing_half(call_op: Any, sign: int) -> None:
    """A sum past Half's range is the infinity of the exact sum's sign: Kiln totals in double.
    (torch keeps Half partial sums, which on other inputs overflow both ways and give NaN.)"""
    x = ((torch.arange(4000) % 7 * 8000 - 20000) * sign).to(torch.int16)
    exact = float(x.double().sum())
    assert abs(exact) > 65504 and (exact > 0) == (sign > 0)
    got = call_op("aten::sum.out", x, dtype=torch.float16, out=torch.empty((), dtype=torch.float16))
    assert_same(got, torch.tensor(math.copysign(math.inf, exact), dtype=torch.float16))
