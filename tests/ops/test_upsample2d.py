"""aten::upsample_nearest2d.out and aten::upsample_bilinear2d.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import FLOAT_DTYPES, make_tensor, out_tensors

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
DTYPES = [torch.uint8, *FLOAT_DTYPES]


@st.composite
def upsample_case(draw: Any) -> tuple[torch.Tensor, list[int], Any, Any]:
    dtype = draw(st.sampled_from(DTYPES))
    shape = (
        draw(st.integers(0, 2)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 8)),
        draw(st.integers(1, 8)),
    )
    x = make_tensor(dtype, shape, draw(st.integers(0, 2**31 - 1)))
    size = [draw(st.integers(1, 17)) for _ in range(2)]
    scales = draw(st.sampled_from([(None, None), (0.5, 2.0), (1.7, 0.3), (0.0, -1.0)]))
    return x, size, scales[0], scales[1]


@SETTINGS
@given(data=st.data())
def test_upsample_nearest2d_matches_torch(call_op: Any, data: Any) -> None:
    x, size, scale_h, scale_w = data.draw(upsample_case())
    out = data.draw(out_tensors(x.dtype, (*x.shape[:2], *size), other_dtype_p=0.1))
    check_op(
        call_op,
        "aten::upsample_nearest2d.out",
        aten.upsample_nearest2d.out,
        (x, size, scale_h, scale_w),
        out=out,
    )


@SETTINGS
@given(data=st.data())
def test_upsample_bilinear2d_matches_torch(call_op: Any, data: Any) -> None:
    x, size, scale_h, scale_w = data.draw(upsample_case())
    align = data.draw(st.booleans())
    out = data.draw(out_tensors(x.dtype, (*x.shape[:2], *size), other_dtype_p=0.1))
    # uint8 rounds through fixed-point weights in ATen: allow one unit.
    atol = 1.0 if x.dtype == torch.uint8 else 1e-5 * 30
    if x.dtype == torch.uint8:
        out = torch.empty(0, dtype=torch.uint8)
        expected = aten.upsample_bilinear2d(x, size, align, scale_h, scale_w)
        actual = call_op("aten::upsample_bilinear2d.out", x, size, align, scale_h, scale_w, out=out)
        assert actual.dtype == torch.uint8 and actual.shape == expected.shape
        if expected.numel():
            assert int((actual.int() - expected.int()).abs().max()) <= 1
        return
    check_op(
        call_op,
        "aten::upsample_bilinear2d.out",
        aten.upsample_bilinear2d.out,
        (x, size, align, scale_h, scale_w),
        out=out,
        atol=atol,
    )


ones = torch.ones


@pytest.mark.parametrize(
    ("name", "op", "args"),
    [
        ("aten::upsample_nearest2d.out", aten.upsample_nearest2d.out, (ones(2, 5, 5), [7, 7])),
        ("aten::upsample_nearest2d.out", aten.upsample_nearest2d.out, (ones(1, 0, 5, 5), [7, 7])),
        ("aten::upsample_nearest2d.out", aten.upsample_nearest2d.out, (ones(1, 2, 0, 5), [7, 7])),
        ("aten::upsample_nearest2d.out", aten.upsample_nearest2d.out, (ones(1, 2, 5, 5), [0, 7])),
        (
            "aten::upsample_nearest2d.out",
            aten.upsample_nearest2d.out,
            (ones(1, 2, 5, 5), [7, 7, 7]),
        ),
        (
            "aten::upsample_nearest2d.out",
            aten.upsample_nearest2d.out,
            (ones(1, 2, 5, 5, dtype=torch.int32), [7, 7]),
        ),
        (
            "aten::upsample_bilinear2d.out",
            aten.upsample_bilinear2d.out,
            (ones(1, 2, 5, 5, dtype=torch.int64), [7, 7], False),
        ),
        (
            "aten::upsample_bilinear2d.out",
            aten.upsample_bilinear2d.out,
            (ones(1, 2, 5), [7, 7], True),
        ),
    ],
)
def test_errors(call_op: Any, name: str, op: Any, args: tuple[Any, ...]) -> None:
    check_op(call_op, name, op, args, out=torch.empty(0, dtype=args[0].dtype))
