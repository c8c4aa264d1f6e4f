"""aten::logsumexp.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, magnitude
from strategies import FLOAT_DTYPES, dtypes, make_tensor, out_like, shapes, tensors

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


@st.composite
def dim_lists(draw: Any, rank: int) -> list[int]:
    extent = max(rank, 1)
    if draw(st.integers(0, 9)) == 0:
        return draw(st.lists(st.integers(-extent - 1, extent), max_size=3))
    dims = draw(st.lists(st.integers(0, extent - 1), unique=True, max_size=extent))
    return [d - extent if draw(st.booleans()) else d for d in dims]


@SETTINGS
@given(data=st.data())
def test_logsumexp_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES) if data.draw(st.integers(0, 3)) else dtypes)
    a = data.draw(tensors(dtype, shapes(0, 4, 0, 5), int_range=(-20, 20)))
    dim = data.draw(dim_lists(a.dim()))
    default = dtype if dtype.is_floating_point else torch.float32
    out_dtype = default if data.draw(st.integers(0, 4)) else data.draw(dtypes)
    atol = 1e-5
    if dtype in (torch.float16, torch.bfloat16):
        # ATen rounds each intermediate (x - max, exp, sum, log) to the input's 16 bits, also
        # when out is as wide; near-zero results after cancellation show it most.
        atol += 4 * torch.finfo(dtype).eps * (1 + magnitude(a))
    check_op(
        call_op,
        "aten::logsumexp.out",
        aten.logsumexp.out,
        (a, dim, data.draw(st.booleans())),
        out=out_like(out_dtype, None),
        atol=atol,
    )


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_logsumexp_long(call_op: Any, dtype: torch.dtype) -> None:
    for shape, dim in [((3, 1000), [1]), ((1000, 3), [0]), ((6, 300, 5), [0, 2])]:
        a = make_tensor(dtype, shape, 13, magnitude=5.0)
        check_op(
            call_op,
            "aten::logsumexp.out",
            aten.logsumexp.out,
            (a, dim),
            out=torch.empty(0, dtype=dtype),
            atol=1e-5,
        )


def test_logsumexp_infinities(call_op: Any) -> None:
    inf, nan = float("inf"), float("nan")
    a = torch.tensor([[inf, 1.0], [-inf, -inf], [nan, 1.0], [-inf, 2.0], [inf, -inf]])
    check_op(call_op, "aten::logsumexp.out", aten.logsumexp.out, (a, [1]), out=torch.empty(0))


def test_logsumexp_rejects_integer_out(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="Expected floating point type for result"):
        call_op("aten::logsumexp.out", torch.ones(3), [0], out=torch.empty(0, dtype=torch.int32))
