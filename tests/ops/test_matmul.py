"""aten::bmm.out, aten::addmm.out, aten::baddbmm.out and aten::linear.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, eps, magnitude
from strategies import ALL_DTYPES, make_tensor, out_tensors, tensors

import kiln

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
MM_DTYPES = [d for d in ALL_DTYPES if d != torch.bool]


def product_atol(k: int, dtype: torch.dtype, *factors: Any) -> float:
    """Accumulation-order room: k products of the largest magnitudes, a few ulps each."""
    if not dtype.is_floating_point:
        return 0.0
    scale = 1.0
    for f in factors:
        scale *= magnitude(f)
    return 4 * eps(dtype) * max(k, 1) * scale


def small_scalar(dtype: torch.dtype) -> Any:
    if dtype.is_floating_point:
        return st.sampled_from([0, 1, -1, 2, 0.5, -1.5])
    return st.sampled_from([0, 1, -1, 2, 3])


@SETTINGS
@given(data=st.data())
def test_bmm_matches_torch(call_op: Any, data: Any) -> None:
    b, n, k, m = (data.draw(st.integers(0, 6)) for _ in range(4))
    dtype = data.draw(st.sampled_from(MM_DTYPES))
    x = data.draw(tensors(dtype, (b, n, k), special=False, magnitude=3.0))
    y = data.draw(tensors(dtype, (b, k, m), special=False, magnitude=3.0))
    out = data.draw(out_tensors(dtype, (b, n, m), other_dtype_p=0.1))
    check_op(
        call_op, "aten::bmm.out", aten.bmm.out, (x, y), out=out, atol=product_atol(k, dtype, x, y)
    )


@SETTINGS
@given(data=st.data())
def test_addmm_matches_torch(call_op: Any, data: Any) -> None:
    n, k, m = (data.draw(st.integers(0, 8)) for _ in range(3))
    dtype = data.draw(st.sampled_from(MM_DTYPES))
    self_shape = data.draw(st.sampled_from([(n, m), (m,), (1, m), (n, 1), (), (1,)]))
    c = data.draw(tensors(dtype, self_shape, special=False, magnitude=3.0))
    x = data.draw(tensors(dtype, (n, k), special=False, magnitude=3.0))
    y = data.draw(tensors(dtype, (k, m), special=False, magnitude=3.0))
    beta = data.draw(small_scalar(dtype))
    alpha = data.draw(small_scalar(dtype))
    out = data.draw(out_tensors(dtype, (n, m), other_dtype_p=0.1))
    atol = product_atol(k + 1, dtype, x, y, c, alpha, beta)
    check_op(
        call_op,
        "aten::addmm.out",
        aten.addmm.out,
        (c, x, y),
        {"beta": beta, "alpha": alpha},
        out=out,
        atol=atol,
    )


@SETTINGS
@given(data=st.data())
def test_baddbmm_matches_torch(call_op: Any, data: Any) -> None:
    b, n, k, m = (data.draw(st.integers(0, 5)) for _ in range(4))
    dtype = data.draw(st.sampled_from(MM_DTYPES))
    self_shape = data.draw(st.sampled_from([(b, n, m), (n, m), (m,), (1, n, 1), ()]))
    c = data.draw(tensors(dtype, self_shape, special=False, magnitude=3.0))
    x = data.draw(tensors(dtype, (b, n, k), special=False, magnitude=3.0))
    y = data.draw(tensors(dtype, (b, k, m), special=False, magnitude=3.0))
    beta = data.draw(small_scalar(dtype))
    alpha = data.draw(small_scalar(dtype))
    out = data.draw(out_tensors(dtype, (b, n, m), other_dtype_p=0.1))
    atol = product_atol(k + 1, dtype, x, y, c, alpha, beta)
    check_op(
        call_op,
        "aten::baddbmm.out",
        aten.baddbmm.out,
        (c, x, y),
        {"beta": beta, "alpha": alpha},
        out=out,
        atol=atol,
    )


@SETTINGS
@given(data=st.data())
def test_linear_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(MM_DTYPES))
    lead = data.draw(st.lists(st.integers(0, 4), min_size=0, max_size=3))
    k = data.draw(st.integers(0, 7))
    n = data.draw(st.integers(0, 6))
    vector_weight = data.draw(st.booleans())
    x = data.draw(tensors(dtype, (*lead, k), special=False, magnitude=3.0))
    w = data.draw(tensors(dtype, (k,) if vector_weight else (n, k), special=False, magnitude=3.0))
    out_shape = tuple(lead) if vector_weight else (*lead, n)
    bias = None
    if data.draw(st.booleans()) and not (vector_weight and len(lead) == 1):
        trailing = out_shape[-2:] if out_shape else ()
        bias_shape = data.draw(st.sampled_from([trailing[-1:], trailing, ()]))
        bias = data.draw(tensors(dtype, tuple(bias_shape), special=False, magnitude=3.0))
    out = data.draw(out_tensors(dtype, out_shape, other_dtype_p=0.1))
    atol = product_atol(k + 1, dtype, x, w, *(() if bias is None else (bias,)))
    check_op(call_op, "aten::linear.out", aten.linear.out, (x, w, bias), out=out, atol=atol)


@pytest.mark.parametrize("dtype", MM_DTYPES)
@pytest.mark.parametrize(("n", "k", "m"), [(70, 150, 45), (1, 300, 130), (49, 1, 65)])
def test_addmm_blocked_sizes(call_op: Any, dtype: torch.dtype, n: int, k: int, m: int) -> None:
    # Sizes past the gemm's register tiles and cache blocks, with the epilogue; integers wrap.
    c = make_tensor(dtype, (m,), 9, magnitude=2.0)
    x = make_tensor(dtype, (n, k), 10, magnitude=2.0)
    y = make_tensor(dtype, (k, m), 11, magnitude=2.0)
    check_op(
        call_op,
        "aten::addmm.out",
        aten.addmm.out,
        (c, x, y),
        {"beta": 2, "alpha": -1},
        out=torch.empty(0, dtype=dtype),
        atol=product_atol(k + 2, dtype, x, y, c),
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int32])
def test_linear_blocked_sizes(call_op: Any, dtype: torch.dtype) -> None:
    x = make_tensor(dtype, (3, 37, 300), 20, magnitude=2.0, int_range=(-50, 50))
    w = make_tensor(dtype, (133, 300), 21, magnitude=2.0, int_range=(-50, 50))
    b = make_tensor(dtype, (133,), 22, magnitude=2.0, int_range=(-50, 50))
    check_op(
        call_op,
        "aten::linear.out",
        aten.linear.out,
        (x, w, b),
        out=torch.empty(0, dtype=dtype),
        atol=product_atol(301, dtype, x, w, b),
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("rows", [1, 2, 3, 8])
@pytest.mark.parametrize("k", [1, 9, 300, 1100])
def test_few_rows_by_dot_products(call_op: Any, dtype: torch.dtype, rows: int, k: int) -> None:
    # Up to 8 rows against a transposed operand of their dtype are dot products of contiguous
    # rows (16-bit rows converted a pass at a time): vector lanes, a scalar tail past the last
    # full vector, passes of 512 elements, and columns four at a time with a remainder
    # (37 = 9 * 4 + 1). Float64 takes the blocked path.
    x = make_tensor(dtype, (rows, k), 30, magnitude=2.0)
    w = make_tensor(dtype, (37, k), 31, magnitude=2.0)
    b = make_tensor(dtype, (37,), 32, magnitude=2.0)
    out = torch.empty(0, dtype=dtype)
    atol = product_atol(k + 1, dtype, x, w, b)
    check_op(call_op, "aten::linear.out", aten.linear.out, (x, w, b), out=out, atol=atol)
    special = make_tensor(dtype, (rows, k), 34, special=True)
    check_op(call_op, "aten::linear.out", aten.linear.out, (special, w), out=out, atol=atol)


def test_addmm_beta_zero_ignores_nan_and_alpha_zero_ignores_product(call_op: Any) -> None:
    nan = torch.full((3,), float("nan"))
    x = make_tensor(torch.float32, (2, 4), 1, special=True)
    y = make_tensor(torch.float32, (4, 3), 2)
    check_op(
        call_op,
        "aten::addmm.out",
        aten.addmm.out,
        (nan, y.T.contiguous(), y),
        {"beta": 0},
        out=torch.empty(0),
    )
    check_op(
        call_op,
        "aten::addmm.out",
        aten.addmm.out,
        (torch.ones(3), x, y),
        {"alpha": 0},
        out=torch.empty(0),
    )


def test_nan_and_inf_propagate(call_op: Any) -> None:
    x = make_tensor(torch.float32, (2, 5, 6), 12, special=True)
    y = make_tensor(torch.float32, (2, 6, 7), 13, special=True)
    check_op(call_op, "aten::bmm.out", aten.bmm.out, (x, y), out=torch.empty(0))


@pytest.mark.parametrize(
    ("name", "op", "args", "match"),
    [
        ("aten::bmm.out", aten.bmm.out, (torch.ones(2, 3), torch.ones(3, 4)), "3D"),
        ("aten::bmm.out", aten.bmm.out, (torch.ones(2, 3, 4), torch.ones(3, 4, 5)), "batch2"),
        ("aten::bmm.out", aten.bmm.out, (torch.ones(2, 3, 4), torch.ones(2, 5, 5)), "batch2"),
        (
            "aten::bmm.out",
            aten.bmm.out,
            (torch.ones(2, 3, 4), torch.ones(2, 4, 5, dtype=torch.float64)),
            "scalar type|dtype",
        ),
        (
            "aten::bmm.out",
            aten.bmm.out,
            (torch.ones(1, 2, 2, dtype=torch.bool), torch.ones(1, 2, 2, dtype=torch.bool)),
            "Bool",
        ),
        (
            "aten::addmm.out",
            aten.addmm.out,
            (torch.ones(4), torch.ones(2, 4), torch.ones(4, 3)),
            "expanded size",
        ),
        (
            "aten::addmm.out",
            aten.addmm.out,
            (torch.ones(1, 2, 3), torch.ones(2, 4), torch.ones(4, 3)),
            "expand",
        ),
        (
            "aten::addmm.out",
            aten.addmm.out,
            (torch.ones(3), torch.ones(2, 5), torch.ones(4, 3)),
            "cannot be multiplied",
        ),
        (
            "aten::addmm.out",
            aten.addmm.out,
            (torch.ones(3), torch.ones(4), torch.ones(4, 3)),
            "mat1 must be a matrix",
        ),
        (
            "aten::addmm.out",
            aten.addmm.out,
            (torch.ones(3, dtype=torch.float64), torch.ones(2, 4), torch.ones(4, 3)),
            "same dtype",
        ),
        (
            "aten::baddbmm.out",
            aten.baddbmm.out,
            (torch.ones(4, 1), torch.ones(2, 3, 4), torch.ones(2, 4, 5)),
            "expanded size",
        ),
        (
            "aten::baddbmm.out",
            aten.baddbmm.out,
            (torch.ones(3, 1, dtype=torch.float64), torch.ones(2, 3, 4), torch.ones(2, 4, 5)),
            "Input dtypes",
        ),
        ("aten::linear.out", aten.linear.out, (torch.ones(()), torch.ones(3, 4)), "at least 1D"),
        (
            "aten::linear.out",
            aten.linear.out,
            (torch.ones(2, 5), torch.ones(3, 4)),
            "cannot be multiplied",
        ),
        (
            "aten::linear.out",
            aten.linear.out,
            (torch.ones(2, 4), torch.ones(3, 4, dtype=torch.float64)),
            "same dtype",
        ),
        (
            "aten::linear.out",
            aten.linear.out,
            (torch.ones(2, 4), torch.ones(3, 4), torch.ones(3, dtype=torch.float64)),
            "same dtype",
        ),
        (
            "aten::linear.out",
            aten.linear.out,
            (torch.ones(2, 4), torch.ones(4), torch.ones(())),
            "matrix",
        ),
        (
            "aten::linear.out",
            aten.linear.out,
            (torch.ones(2, 4, dtype=torch.bool), torch.ones(3, 4, dtype=torch.bool)),
            "Bool",
        ),
    ],
)
def test_errors(call_op: Any, name: str, op: Any, args: tuple[Any, ...], match: str) -> None:
    dtype = torch.bool if any(a.dtype == torch.bool for a in args) else torch.float32
    with pytest.raises((RuntimeError, NotImplementedError)):
        op(*args, out=torch.empty(0, dtype=dtype))
    with pytest.raises(kiln.KilnError, match=match):
        call_op(name, *args, out=torch.empty(0, dtype=dtype))


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("aten::bmm.out", (torch.ones(2, 2, 2), torch.ones(2, 2, 2))),
        ("aten::addmm.out", (torch.ones(2), torch.ones(2, 2), torch.ones(2, 2))),
        ("aten::baddbmm.out", (torch.ones(2), torch.ones(2, 2, 2), torch.ones(2, 2, 2))),
        ("aten::linear.out", (torch.ones(2, 2), torch.ones(2, 2))),
    ],
)
def test_out_dtype_must_match(call_op: Any, name: str, args: tuple[Any, ...]) -> None:
    with pytest.raises(kiln.KilnError, match="(?i)Expected out tensor to have dtype float"):
        call_op(name, *args, out=torch.empty(0, dtype=torch.float64))


def test_presized_out_is_resized(call_op: Any) -> None:
    out = torch.empty(2, 2)
    call_op("aten::bmm.out", torch.ones(1, 2, 3), torch.ones(1, 3, 2), out=out)
    assert out.shape == (1, 2, 2)
