"""aten::upsample_nearest2d and aten::upsample_bilinear2d (.out and .vec_out) against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import backend_of, check_op
from strategies import FLOAT_DTYPES, make_tensor, out_like, out_tensors

import kiln

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
        check_uint8_within_one(
            call_op,
            "aten::upsample_bilinear2d.out",
            aten.upsample_bilinear2d,
            (x, size, align, scale_h, scale_w),
            torch.empty(0, dtype=torch.uint8),
        )
        return
    check_op(
        call_op,
        "aten::upsample_bilinear2d.out",
        aten.upsample_bilinear2d.out,
        (x, size, align, scale_h, scale_w),
        out=out,
        atol=atol,
    )


@st.composite
def vec_sizing(draw: Any) -> tuple[list[int] | None, list[float] | None]:
    """The .vec overloads' (output_size, scale_factors): one of them, as torch requires."""
    if draw(st.booleans()):
        return [draw(st.integers(1, 17)) for _ in range(2)], None
    factors = st.one_of(
        st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0, 0.3, 1 / 3]), st.floats(0.25, 4.0, width=32)
    )
    return None, [draw(factors) for _ in range(2)]


def check_uint8_within_one(
    call_op: Any, name: str, torch_op: Any, args: tuple[Any, ...], out: torch.Tensor
) -> None:
    """uint8 bilinear rounds through fixed-point weights in ATen: allow one unit."""
    try:
        expected = torch_op(*args)
    except RuntimeError as error:
        if "INTERNAL ASSERT" in str(error) and backend_of(call_op) != "aten":
            # ATen's Byte fast path (up to 4 channels) fails an assert on a 1x1 output; its
            # general path serves: the channels padded to 5 and cut back.
            x = args[0]
            padded = torch.cat([x, x.new_zeros(x.shape[0], 5, *x.shape[2:])], dim=1)
            expected = torch_op(padded, *args[1:])[:, : x.shape[1]]
        else:
            with pytest.raises(kiln.KilnError):
                call_op(name, *args, out=out)
            return
    actual = call_op(name, *args, out=out)
    assert actual.dtype == torch.uint8 and actual.shape == expected.shape
    if expected.numel():
        assert int((actual.int() - expected.int()).abs().max()) <= 1


@SETTINGS
@given(data=st.data())
def test_upsample_nearest2d_vec_matches_torch(call_op: Any, data: Any) -> None:
    x, _, _, _ = data.draw(upsample_case())
    size, factors = data.draw(vec_sizing())
    out = out_like(x.dtype, None) if data.draw(st.booleans()) else torch.empty(0, dtype=x.dtype)
    check_op(
        call_op,
        "aten::upsample_nearest2d.vec_out",
        aten.upsample_nearest2d.vec_out,
        (x, size, factors),
        out=out,
    )


@SETTINGS
@given(data=st.data())
def test_upsample_bilinear2d_vec_matches_torch(call_op: Any, data: Any) -> None:
    x, _, _, _ = data.draw(upsample_case())
    size, factors = data.draw(vec_sizing())
    align = data.draw(st.booleans())
    name = "aten::upsample_bilinear2d.vec_out"
    if x.dtype == torch.uint8:
        check_uint8_within_one(
            call_op,
            name,
            aten.upsample_bilinear2d.vec,
            (x, size, align, factors),
            torch.empty(0, dtype=torch.uint8),
        )
        return
    out = torch.empty(0, dtype=x.dtype)
    args = (x, size, align, factors)
    check_op(call_op, name, aten.upsample_bilinear2d.vec_out, args, out=out, atol=3e-5)


def test_upsample_bilinear2d_byte_to_1x1(call_op: Any) -> None:
    # ATen's Byte fast path fails an internal assert here (libtorch's kernel too, on "aten").
    x = make_tensor(torch.uint8, (1, 3, 2, 1), 8)
    check_uint8_within_one(
        call_op,
        "aten::upsample_bilinear2d.vec_out",
        aten.upsample_bilinear2d.vec,
        (x, [1, 1], False, None),
        torch.empty(0, dtype=torch.uint8),
    )


def test_upsample_vec_scale_factors_set_the_scales(call_op: Any) -> None:
    # With factors, the factor (not in/out) maps output to input positions: 5 * 1.3 = 6 rows.
    x = make_tensor(torch.float32, (1, 2, 5, 7), 4)
    for align in (False, True):
        args = (x, None, align, [1.3, 2.7])
        check_op(
            call_op,
            "aten::upsample_bilinear2d.vec_out",
            aten.upsample_bilinear2d.vec_out,
            args,
            out=torch.empty(0),
            atol=3e-5,
        )
    check_op(
        call_op,
        "aten::upsample_nearest2d.vec_out",
        aten.upsample_nearest2d.vec_out,
        (x, None, [1.3, 2.7]),
        out=torch.empty(0),
    )


@pytest.mark.parametrize(
    ("size", "factors"),
    [
        ([3, 4], [1.0, 2.0]),  # both
        (None, None),  # neither
        ([3], None),
        (None, [2.0]),
        (None, [0.1, 1.0]),  # 5 * 0.1 rounds down to 0 rows
        (None, [-1.0, 1.0]),
        (None, [float("inf"), 1.0]),
        (None, [float("nan"), 1.0]),
        (None, [1e30, 1.0]),
    ],
)
def test_upsample_vec_refusals(call_op: Any, size: Any, factors: Any) -> None:
    x = torch.ones(1, 2, 5, 7)
    check_op(
        call_op,
        "aten::upsample_nearest2d.vec_out",
        aten.upsample_nearest2d.vec_out,
        (x, size, factors),
        out=torch.empty(0),
    )
    check_op(
        call_op,
        "aten::upsample_bilinear2d.vec_out",
        aten.upsample_bilinear2d.vec_out,
        (x, size, False, factors),
        out=torch.empty(0),
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
