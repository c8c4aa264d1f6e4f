"""aten::max_pool2d_with_indices.out, aten::avg_pool2d.out and aten::_adaptive_avg_pool2d.out."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, check_op
from strategies import FLOAT_DTYPES, INT_DTYPES, make_tensor, out_tensors

import kiln

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


@st.composite
def pool_case(draw: Any, dilation: bool) -> dict[str, Any]:
    kernel = [draw(st.integers(1, 4)) for _ in range(2)]
    stride = [draw(st.integers(1, 3)) for _ in range(2)]
    dil = [draw(st.integers(1, 2)) for _ in range(2)] if dilation else [1, 1]
    padding = [
        draw(st.integers(0, ((k - 1) * d + 1) // 2)) for k, d in zip(kernel, dil, strict=True)
    ]
    lead = draw(st.sampled_from([(), (0,), (1,), (2,)]))
    shape = (*lead, draw(st.integers(1, 3)), draw(st.integers(1, 9)), draw(st.integers(1, 9)))
    form = draw(st.sampled_from(["pairs", "single", "empty_stride"]))
    if form == "single":
        kernel, stride, padding, dil = kernel[:1], stride[:1], padding[:1], dil[:1]
        padding = [min(padding[0], ((kernel[0] - 1) * dil[0] + 1) // 2)]
    elif form == "empty_stride":
        stride = []
    return {
        "shape": shape,
        "kernel": kernel,
        "stride": stride,
        "padding": padding,
        "dilation": dil,
        "ceil_mode": draw(st.booleans()),
    }


def run_max_pool(call_op: Any, x: torch.Tensor, args: tuple[Any, ...]) -> None:
    torch_out = torch.empty(0, dtype=x.dtype)
    torch_idx = torch.empty(0, dtype=torch.int64)
    kiln_out = torch.empty(0, dtype=x.dtype)
    kiln_idx = torch.empty(0, dtype=torch.int64)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            aten.max_pool2d_with_indices.out(x, *args, out=torch_out, indices=torch_idx)
    except (RuntimeError, NotImplementedError):
        with pytest.raises(kiln.KilnError):
            call_op("aten::max_pool2d_with_indices.out", x, *args, out=(kiln_out, kiln_idx))
        return
    result = call_op("aten::max_pool2d_with_indices.out", x, *args, out=(kiln_out, kiln_idx))
    assert result[0] is kiln_out and result[1] is kiln_idx
    assert_same(kiln_out, torch_out)
    assert_same(kiln_idx, torch_idx)


@SETTINGS
@given(data=st.data())
def test_max_pool2d_matches_torch(call_op: Any, data: Any) -> None:
    case = data.draw(pool_case(True))
    dtype = data.draw(st.sampled_from([*INT_DTYPES, *FLOAT_DTYPES]))
    x = make_tensor(
        dtype, case["shape"], data.draw(st.integers(0, 2**31 - 1)), special=data.draw(st.booleans())
    )
    args = (case["kernel"], case["stride"], case["padding"], case["dilation"], case["ceil_mode"])
    run_max_pool(call_op, x, args)


def test_max_pool2d_nan_and_ties(call_op: Any) -> None:
    nan = float("nan")
    x = torch.tensor([[[[nan, 1.0, 1.0], [2.0, nan, 2.0], [-float("inf")] * 3]]])
    run_max_pool(call_op, x, ([2, 2], [1, 1], [1, 1], [1, 1], True))
    run_max_pool(
        call_op, torch.full((1, 1, 3, 3), -float("inf")), ([2, 2], [1, 1], [1, 1], [1, 1], False)
    )


@SETTINGS
@given(data=st.data())
def test_avg_pool2d_matches_torch(call_op: Any, data: Any) -> None:
    case = data.draw(pool_case(False))
    dtype = data.draw(st.sampled_from([torch.int64, *FLOAT_DTYPES]))
    x = make_tensor(
        dtype, case["shape"], data.draw(st.integers(0, 2**31 - 1)), int_range=(-1000, 1000)
    )
    divisor = data.draw(st.sampled_from([None, None, 1, 3, -2]))
    args = (
        x,
        case["kernel"],
        case["stride"],
        case["padding"],
        case["ceil_mode"],
        data.draw(st.booleans()),
        divisor,
    )
    check_op(
        call_op, "aten::avg_pool2d.out", aten.avg_pool2d.out, args, out=torch.empty(0, dtype=dtype)
    )


@SETTINGS
@given(data=st.data())
def test_adaptive_avg_pool2d_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    lead = data.draw(st.sampled_from([(), (0,), (2,)]))
    shape = (
        *lead,
        data.draw(st.integers(1, 3)),
        data.draw(st.integers(1, 10)),
        data.draw(st.integers(1, 10)),
    )
    x = make_tensor(dtype, shape, data.draw(st.integers(0, 2**31 - 1)))
    size = [data.draw(st.integers(0, 12)) for _ in range(2)]
    out = data.draw(out_tensors(dtype, (*shape[:-2], *size), other_dtype_p=0.1))
    check_op(
        call_op, "aten::_adaptive_avg_pool2d.out", aten._adaptive_avg_pool2d.out, (x, size), out=out
    )


ones = torch.ones


@pytest.mark.parametrize(
    "args",
    [
        (ones(1, 2, 5, 5), [3, 3], [1, 1], [2, 2]),
        (ones(1, 2, 5, 5), [3, 3, 3]),
        (ones(1, 2, 5, 5), [3, 3], [1, 1, 1]),
        (ones(1, 2, 5, 5), [0, 3]),
        (ones(1, 2, 5, 5), [3, 3], [0, 1]),
        (ones(1, 2, 5, 5), [3, 3], [1, 1], [0, 0], [0, 1]),
        (ones(1, 2, 2, 2), [3, 3]),
        (ones(2, 5), [1, 1]),
        (ones(1, 0, 5, 5), [1, 1]),
        (ones(1, 2, 5, 5, dtype=torch.bool), [1, 1]),
    ],
)
def test_max_pool2d_errors(call_op: Any, args: tuple[Any, ...]) -> None:
    run_max_pool(call_op, args[0], args[1:])


def test_max_pool2d_out_dtypes(call_op: Any) -> None:
    x = ones(1, 2, 5, 5)
    with pytest.raises(kiln.KilnError):
        call_op(
            "aten::max_pool2d_with_indices.out",
            x,
            [2, 2],
            out=(torch.empty(0), torch.empty(0, dtype=torch.int32)),
        )
    with pytest.raises(kiln.KilnError):
        call_op(
            "aten::max_pool2d_with_indices.out",
            x,
            [2, 2],
            out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int64)),
        )


@pytest.mark.parametrize(
    "args",
    [
        (ones(1, 2, 5, 5), [3, 3], [1, 1], [2, 2]),
        (ones(1, 2, 5, 5), [3, 3, 3]),
        (ones(1, 2, 5, 5), [3, 3], [1, 1, 1]),
        (ones(1, 2, 5, 5), [3, 3], [1, 1], [1, 1, 1]),
        (ones(1, 2, 5, 5), [0, 3]),
        (ones(1, 2, 5, 5), [3, 3], [], [0, 0], False, True, 0),
        (ones(1, 2, 5, 5, dtype=torch.int32), [3, 3]),
        (ones(1, 2, 2, 2), [3, 3]),
        (ones(1, 2, 0, 5), [1, 1]),
    ],
)
def test_avg_pool2d_errors(call_op: Any, args: tuple[Any, ...]) -> None:
    out = torch.empty(0, dtype=args[0].dtype)
    check_op(call_op, "aten::avg_pool2d.out", aten.avg_pool2d.out, args, out=out)


@pytest.mark.parametrize(
    "args",
    [
        (ones(1, 2, 0, 5), [1, 2]),
        (ones(2, 5), [1, 2]),
        (ones(1, 2, 5, 5), [1, 2, 3]),
        (ones(1, 2, 5, 5, dtype=torch.int64), [1, 2]),
    ],
)
def test_adaptive_avg_pool2d_errors(call_op: Any, args: tuple[Any, ...]) -> None:
    out = torch.empty(0, dtype=args[0].dtype)
    check_op(
        call_op, "aten::_adaptive_avg_pool2d.out", aten._adaptive_avg_pool2d.out, args, out=out
    )


@pytest.mark.parametrize(
    "args", [([3, 3], [1, 1], [2**62, 0]), ([2**40, 3],), ([3, 3], [1, 1], [0, 0], [2**31, 1])]
)
def test_max_pool2d_arguments_of_2_31_or_more_are_not_supported(args: tuple[Any, ...]) -> None:
    # The portable kernel computes the output geometry in int64_t, which these could overflow.
    out = (torch.empty(0), torch.empty(0, dtype=torch.int64))
    with pytest.raises(kiln.KilnError, match=r"of 2\^31 or more are not supported") as error:
        kiln.call_op(
            "aten::max_pool2d_with_indices.out",
            ones(1, 2, 5, 5),
            *args,
            out=out,
            backend="portable",
        )
    assert error.value.code == "NotSupported"
