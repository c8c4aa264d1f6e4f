"""aten::convolution.out (1-D and 2-D, grouped, strided, dilated, transposed) against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from op_compare import check_op, eps, is_portable, magnitude
from strategies import INT_DTYPES, make_tensor, out_tensors

import kiln

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


def conv_atol(k: int, dtype: torch.dtype, *factors: Any) -> float:
    if not dtype.is_floating_point:
        return 0.0
    scale = 1.0
    for f in factors:
        scale *= magnitude(f)
    return 4 * eps(dtype) * max(k, 1) * scale


def in_float(dtype: torch.dtype) -> Any:
    """aten::convolution.out of `dtype` (a 16-bit float) tensors computed in float32 and rounded
    once, as Kiln computes them. libtorch's own 16-bit kernels are no reference: its bfloat16
    kernel reads memory it never wrote for some geometries (1e30 where float64 gives 7.3, for a
    2x3 kernel at stride (1, 2) with padding (1, 0)), and its oneDNN half kernel segfaults on some
    dilated shapes (found by the bindings' fuzzer), taking the test process with it."""

    def convolution(*args: Any, out: torch.Tensor) -> torch.Tensor:
        result = aten.convolution(*[a.float() if isinstance(a, torch.Tensor) else a for a in args])
        if out.dtype != dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {dtype}, but got {out.dtype}")
        return out.resize_(result.shape).copy_(result)

    return convolution


def reference(dtype: torch.dtype) -> Any:
    return in_float(dtype) if dtype in (torch.float16, torch.bfloat16) else aten.convolution.out


@st.composite
def conv_case(draw: Any, transposed: bool) -> dict[str, Any]:
    spatial = draw(st.sampled_from([1, 2]))
    groups = draw(st.integers(1, 3))
    in_per_group = draw(st.integers(1, 3))
    out_per_group = draw(st.integers(1, 3))
    kernel = [draw(st.integers(1, 3)) for _ in range(spatial)]
    stride = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dilation = [draw(st.integers(1, 2)) for _ in range(spatial)]
    padding = [draw(st.integers(0, 2)) for _ in range(spatial)]
    output_padding = [0] * spatial
    if transposed:
        output_padding = [
            draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation, strict=True)
        ]
    size = [draw(st.integers(1, 7)) for _ in range(spatial)]
    if transposed:
        # Keep the output non-empty (torch's empty-batch handling of empty outputs is erratic).
        padding = [
            min(p, ((n - 1) * st_ + d * (k - 1) + o) // 2)
            for p, n, st_, d, k, o in zip(
                padding, size, stride, dilation, kernel, output_padding, strict=True
            )
        ]
    else:
        # Keep the (dilated) kernel inside the padded input.
        size = [
            max(n, d * (k - 1) + 1 - 2 * p)
            for n, k, d, p in zip(size, kernel, dilation, padding, strict=True)
        ]
    batch = draw(st.integers(0, 2))
    in_channels = groups * in_per_group
    if transposed:
        weight_shape = (in_channels, out_per_group, *kernel)
    else:
        weight_shape = (groups * out_per_group, in_per_group, *kernel)
    return {
        "input_shape": (batch, in_channels, *size),
        "weight_shape": weight_shape,
        "out_channels": groups * out_per_group,
        "stride": stride,
        "padding": padding,
        "dilation": dilation,
        "output_padding": output_padding,
        "groups": groups,
        "single_params": draw(st.booleans()) and len(set(stride)) == 1,
    }


def run_case(
    call_op: Any, case: dict[str, Any], dtype: torch.dtype, transposed: bool, data: Any
) -> None:
    seed = data.draw(st.integers(0, 2**31 - 1))
    x = make_tensor(dtype, case["input_shape"], seed, magnitude=2.0, int_range=(-20, 20))
    w = make_tensor(dtype, case["weight_shape"], seed + 1, magnitude=2.0, int_range=(-20, 20))
    bias = None
    if data.draw(st.booleans()):
        bias = make_tensor(
            dtype, (case["out_channels"],), seed + 2, magnitude=2.0, int_range=(-20, 20)
        )
    stride = case["stride"][:1] if case["single_params"] else case["stride"]
    args = (
        x,
        w,
        bias,
        stride,
        case["padding"],
        case["dilation"],
        transposed,
        case["output_padding"],
        case["groups"],
    )
    # The aten backend runs libtorch's bfloat16 kernel (see bfloat16_in_float).
    assume(is_portable(call_op) or dtype != torch.bfloat16)
    try:
        shape: tuple[int, ...] | None = tuple(
            reference(dtype)(*args, out=torch.empty(0, dtype=dtype)).shape
        )
    except (RuntimeError, NotImplementedError):
        shape = None  # check_op then expects kiln to refuse too
    out = data.draw(out_tensors(dtype, shape or (0,), other_dtype_p=0.1))
    k = w.shape[0 if transposed else 1] * int(torch.tensor(w.shape[2:]).prod())
    atol = conv_atol(k + 1, dtype, x, w)
    check_op(call_op, "aten::convolution.out", reference(dtype), args, out=out, atol=atol)


@SETTINGS
@given(data=st.data())
def test_convolution_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from([*FLOATS, *INT_DTYPES]))
    run_case(call_op, data.draw(conv_case(False)), dtype, False, data)


@SETTINGS
@given(data=st.data())
def test_transposed_convolution_matches_torch(call_op: Any, data: Any) -> None:
    dtype = data.draw(st.sampled_from([*FLOATS, torch.int64]))
    run_case(call_op, data.draw(conv_case(True)), dtype, True, data)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_convolution_large(call_op: Any, dtype: torch.dtype) -> None:
    # Past the gemm's blocks: 144-long reductions over 1024 output pixels, with bias.
    x = make_tensor(dtype, (2, 16, 32, 32), 1, magnitude=1.0)
    w = make_tensor(dtype, (40, 16, 3, 3), 2, magnitude=1.0)
    b = make_tensor(dtype, (40,), 3, magnitude=1.0)
    args = (x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    check_op(
        call_op,
        "aten::convolution.out",
        reference(dtype),
        args,
        out=torch.empty(0, dtype=dtype),
        atol=conv_atol(145, dtype, x, w),
    )


# The direct depthwise path (one input channel per group, Float and Double) and the 1x1 path
# (the input read as the gemm's matrix) at the sizes real networks use: every stride, padding,
# dilation and channel multiplier they combine, wide rows past the 16-lane blocks, narrow ones
# inside one, strips of several rows (a 224-wide plane takes several strips), and batches.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "padding", "dilation", "multiplier"),
    [
        ((1, 32, 112, 112), (3, 3), (1, 1), (1, 1), (1, 1), 1),
        ((1, 24, 56, 57), (3, 3), (2, 2), (1, 1), (1, 1), 1),
        ((1, 8, 30, 34), (3, 3), (2, 2), (0, 0), (1, 1), 1),
        ((2, 8, 224, 224), (3, 3), (1, 1), (1, 1), (1, 1), 1),
        ((1, 16, 14, 14), (5, 5), (1, 1), (2, 2), (1, 1), 1),
        ((1, 12, 7, 7), (3, 3), (1, 1), (1, 1), (1, 1), 2),
        ((1, 6, 33, 20), (3, 2), (3, 2), (0, 1), (2, 3), 3),
        ((3, 4, 9, 1), (3, 1), (1, 1), (2, 0), (1, 1), 1),
        ((1, 5, 2, 3), (2, 3), (1, 1), (0, 0), (1, 1), 1),
    ],
)
def test_depthwise_convolution(
    call_op: Any,
    dtype: torch.dtype,
    shape: tuple[int, ...],
    kernel: tuple[int, int],
    stride: tuple[int, int],
    padding: tuple[int, int],
    dilation: tuple[int, int],
    multiplier: int,
) -> None:
    channels = shape[1]
    x = make_tensor(dtype, shape, 7, magnitude=1.0)
    w = make_tensor(dtype, (channels * multiplier, 1, *kernel), 8, magnitude=1.0)
    for bias in (make_tensor(dtype, (channels * multiplier,), 9, magnitude=1.0), None):
        args = conv_args(x, w, bias, stride, padding, dilation, g=channels)
        out = torch.empty(0, dtype=dtype)
        atol = conv_atol(kernel[0] * kernel[1] + 1, dtype, x, w)
        check_op(call_op, "aten::convolution.out", aten.convolution.out, args, out=out, atol=atol)


def test_depthwise_1d_convolution(call_op: Any) -> None:
    x = make_tensor(torch.float32, (2, 10, 300), 10, magnitude=1.0)
    w = make_tensor(torch.float32, (10, 1, 4), 11, magnitude=1.0)
    args = (x, w, None, [2], [3], [2], False, [0], 10)
    out = torch.empty(0)
    check_op(
        call_op,
        "aten::convolution.out",
        aten.convolution.out,
        args,
        out=out,
        atol=conv_atol(5, torch.float32, x, w),
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64])
@pytest.mark.parametrize("groups", [1, 2])
def test_pointwise_convolution(call_op: Any, dtype: torch.dtype, groups: int) -> None:
    x = make_tensor(dtype, (2, 24, 28, 29), 12, magnitude=1.0)
    w = make_tensor(dtype, (36, 24 // groups, 1, 1), 13, magnitude=1.0)
    b = make_tensor(dtype, (36,), 14, magnitude=1.0)
    args = conv_args(x, w, b, g=groups)
    check_op(
        call_op,
        "aten::convolution.out",
        reference(dtype),
        args,
        out=torch.empty(0, dtype=dtype),
        atol=conv_atol(24 // groups + 1, dtype, x, w),
    )


# Float and Double images are read through a padded copy in temporary memory, so that the
# im2col rows are plain copies: at resnet's and the stems' sizes, every stride, padding and
# dilation they combine, batches and groups. A padding far larger than the image keeps the rows
# built with their bounds checked (the path without temporary memory), as do 16-bit floats.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize(
    ("shape", "out_channels", "kernel", "stride", "padding", "dilation", "groups"),
    [
        ((1, 16, 28, 28), 24, (3, 3), (1, 1), (1, 1), (1, 1), 1),
        ((2, 8, 30, 31), 16, (3, 3), (2, 2), (1, 1), (1, 1), 2),
        ((1, 3, 45, 44), 8, (7, 7), (2, 2), (3, 3), (1, 1), 1),
        ((1, 6, 17, 19), 6, (3, 2), (1, 3), (2, 0), (2, 1), 3),
        ((1, 4, 12, 12), 5, (1, 1), (2, 2), (0, 0), (1, 1), 1),
        ((1, 2, 2, 3), 3, (3, 3), (1, 1), (150, 140), (1, 1), 1),
    ],
)
def test_im2col_convolution(
    call_op: Any,
    dtype: torch.dtype,
    shape: tuple[int, ...],
    out_channels: int,
    kernel: tuple[int, int],
    stride: tuple[int, int],
    padding: tuple[int, int],
    dilation: tuple[int, int],
    groups: int,
) -> None:
    x = make_tensor(dtype, shape, 15, magnitude=1.0)
    w = make_tensor(dtype, (out_channels, shape[1] // groups, *kernel), 16, magnitude=1.0)
    b = make_tensor(dtype, (out_channels,), 17, magnitude=1.0)
    check_op(
        call_op,
        "aten::convolution.out",
        reference(dtype),
        conv_args(x, w, b, stride, padding, dilation, g=groups),
        out=torch.empty(0, dtype=dtype),
        atol=conv_atol(shape[1] // groups * kernel[0] * kernel[1] + 1, dtype, x, w),
    )


def test_bias_of_another_dtype_is_converted(call_op: Any) -> None:
    x = make_tensor(torch.float32, (1, 2, 5, 5), 4)
    w = make_tensor(torch.float32, (3, 2, 3, 3), 5)
    b = make_tensor(torch.float64, (3,), 6)
    args = (x, w, b, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    check_op(
        call_op, "aten::convolution.out", aten.convolution.out, args, out=torch.empty(0), atol=1e-4
    )


def conv_args(
    x: Any,
    w: Any,
    b: Any = None,
    s: Any = (1, 1),
    p: Any = (0, 0),
    d: Any = (1, 1),
    t: bool = False,
    op: Any = (0, 0),
    g: int = 1,
) -> tuple[Any, ...]:
    return (x, w, b, list(s), list(p), list(d), t, list(op), g)


ones = torch.ones


@pytest.mark.parametrize(
    "args",
    [
        conv_args(ones(2, 5, 5), ones(3, 2, 3, 3)),
        conv_args(ones(1, 2, 5, 5), ones(3, 2, 3, 3), s=(2, 2, 2)),
        conv_args(ones(1, 2, 5, 5), ones(3, 2, 3, 3), s=(0, 1)),
        conv_args(ones(1, 2, 5, 5), ones(3, 2, 3, 3), p=(-1, 0)),
        conv_args(ones(1, 2, 5, 5), ones(3, 2, 3, 3), d=(0, 1)),
        conv_args(ones(1, 2, 5, 5), ones(3, 2, 3, 3), g=0),
        conv_args(ones(1, 3, 5, 5), ones(3, 2, 3, 3)),
        conv_args(ones(1, 4, 5, 5), ones(3, 2, 3, 3), g=2),
        conv_args(ones(1, 2, 5, 5), ones(3, 2, 3, 3), ones(4)),
        conv_args(ones(1, 2, 5, 5), ones(3, 2, 3, 3, dtype=torch.float64)),
        conv_args(ones(1, 2, 2, 2), ones(3, 2, 3, 3)),
        conv_args(ones(1, 2, 5, 5), ones(0, 2, 3, 3)),
        conv_args(ones(1, 2, 5, 5), ones(2, 3, 3, 3), t=True, op=(1, 1)),
        conv_args(ones(1, 3, 5, 5), ones(2, 3, 3, 3), t=True),
        conv_args(ones(1, 2, 1, 1), ones(2, 3, 1, 1), p=(2, 2), t=True),
        conv_args(ones(1, 2, 5), ones(3, 2))[:3] + ([1], [0], [1], False, [0], 1),
        conv_args(ones(1, 2, 5, 5, dtype=torch.bool), ones(3, 2, 3, 3, dtype=torch.bool)),
        conv_args(ones(1, 2, 5, 5, dtype=torch.int8), ones(2, 3, 3, 3, dtype=torch.int8), t=True),
    ],
)
def test_errors(call_op: Any, args: tuple[Any, ...]) -> None:
    dtype = args[0].dtype
    with pytest.raises((RuntimeError, NotImplementedError)):
        aten.convolution.out(*args, out=torch.empty(0, dtype=dtype))
    with pytest.raises(kiln.KilnError):
        call_op("aten::convolution.out", *args, out=torch.empty(0, dtype=dtype))


@pytest.mark.parametrize("huge", [{"p": (2**62, 0)}, {"d": (1, 2**31)}, {"s": (2**40, 1)}])
def test_arguments_of_2_31_or_more_are_not_supported(huge: dict[str, Any]) -> None:
    # The portable kernel computes the output geometry in int64_t: padding 2^62 would overflow it
    # (libtorch's would too), so a program passing such arguments is refused, not run.
    args = conv_args(ones(1, 2, 5, 5), ones(3, 2, 3, 3), **huge)
    with pytest.raises(kiln.KilnError, match=r"of 2\^31 or more are not supported") as error:
        kiln.call_op("aten::convolution.out", *args, out=torch.empty(0), backend="portable")
    assert error.value.code == "NotSupported"
