"""ExecuTorch's mixed-dtype matmuls: quantized_decomposed::mixed_mm.out (input [m, k] times an int8
weight [k, n] with a scale, and zero point, per weight row) and mixed_linear.out (input [m, k]
times the transpose of an int8 weight [n, k] with a scale, and zero point, per weight row or per
group of a row's columns), against

- the product in float64 of the dequantized weight, (weight - zero point) * scale: Kiln
  dequantizes, multiplies and sums in float and rounds once into out;
- ExecuTorch 1.5.1's own kernels (`import executorch.kernels.quantized`), which take no zero
  points and compute in the input's and out's dtypes (Half products and sums for Half).

Both comparisons are held to a bound of the roundings involved (assert_within). ExecuTorch's
Python definitions of these operators (exir/passes/_quant_patterns_and_replacements.py) declare
the schemas only: there is no computation of theirs to compare with."""

from __future__ import annotations

from typing import Any

import pytest
import quantized_reference as ref
import torch
from op_compare import is_portable, raises

import kiln

Tensor = torch.Tensor
OptionalTensor = torch.Tensor | None
MM = "quantized_decomposed::mixed_mm.out"
LINEAR = "quantized_decomposed::mixed_linear.out"
DTYPES = [torch.float32, torch.float16]


def unit_roundoff(dtype: torch.dtype) -> float:
    return torch.finfo(dtype).eps / 2


def kiln_units(k: int) -> float:
    """Kiln's roundings in float per output: the dequantized weight (a difference and a
    product), the products, and k - 1 additions."""
    return (k + 2) * unit_roundoff(torch.float32)


def executorch_units(k: int, dtype: torch.dtype, out_dtype: torch.dtype) -> float:
    """ExecuTorch's per output: products with the weight and with the scale rounded in the
    input's dtype and the sums in out's (mixed_mm's out has the input's dtype)."""
    return (k + 3) * max(unit_roundoff(dtype), unit_roundoff(out_dtype))


def assert_within(
    out: torch.Tensor,
    reference: torch.Tensor,
    terms: torch.Tensor,
    units: float,
    final_roundings: int = 1,
) -> None:
    """|out - reference| <= units * terms + final_roundings * (u |reference| + subnormal step),
    u out's unit roundoff. `terms` is the sum of the magnitudes of an output's products: a sum of
    n products rounded in a precision of unit roundoff u' is within about n u' terms of the
    exact sum whatever the order of the additions (Higham, gamma_n), which `units` = n u'
    expresses; each rounding into out's dtype adds u relative (a half step absolute below the
    normal range)."""
    assert out.shape == reference.shape, f"shape {tuple(out.shape)} != {tuple(reference.shape)}"
    info = torch.finfo(out.dtype)
    last = unit_roundoff(out.dtype) * reference.double().abs() + info.tiny * info.eps
    bound = units * terms + final_roundings * last
    # Compared through assert_close with out itself (which records the check for the kernel
    # coverage test): the reference stands where out is outside the bound, out where it is in.
    within = (out.double() - reference.double()).abs() <= bound
    expected = torch.where(within, out.double(), reference.double())
    torch.testing.assert_close(out, expected, rtol=0, atol=0, check_dtype=False)


def random_operands(
    m: int, k: int, weight_shape: tuple[int, int], dtype: torch.dtype, seed: int
) -> tuple[Tensor, Tensor, torch.Generator]:
    """input [m, k] of the dtype and a full-range int8 weight, seeded. The input has a mean, as
    after an activation function, so that a zero point's offset, which grows with the sum of
    the input's values, shows at any k."""
    generator = torch.Generator().manual_seed(seed)
    x = (torch.randn(m, k, generator=generator) + 0.5).to(dtype)
    weight = torch.randint(-128, 128, weight_shape, generator=generator, dtype=torch.int8)
    return x, weight, generator


def random_parameters(
    shape: tuple[int, ...], dtype: torch.dtype, generator: torch.Generator, zero_points: bool
) -> tuple[Tensor, OptionalTensor]:
    """Scales in [0.001, 0.021) and, when asked, zero points in [-20, 20): large enough that one
    dropped or misplaced moves a result well past the tolerances."""
    scales = (torch.rand(shape, generator=generator) * 0.02 + 0.001).to(dtype)
    zeros = (torch.rand(shape, generator=generator) * 40 - 20).to(dtype) if zero_points else None
    return scales, zeros


# mixed_mm: the weight's row p is (weight[p] - zeros[p]) * scales[p].


def mm_weight(weight: Tensor, scales: Tensor, zeros: OptionalTensor) -> Tensor:
    z = 0.0 if zeros is None else zeros.double().unsqueeze(1)
    return (weight.double() - z) * scales.double().unsqueeze(1)


def check_mixed_mm(
    call_op: Any, x: Tensor, weight: Tensor, scales: Tensor, zeros: OptionalTensor, executorch: bool
) -> None:
    out = call_op(MM, x, weight, scales, zeros, out=torch.empty(0, dtype=x.dtype))
    w = mm_weight(weight, scales, zeros)
    terms = x.double().abs() @ w.abs()
    k = x.shape[1]
    assert_within(out, x.double() @ w, terms, kiln_units(k))
    if executorch:
        et = ref.OPS.mixed_mm.out(
            x, weight, scales, None, out=torch.empty(out.shape, dtype=x.dtype)
        )
        assert_within(out, et, terms, kiln_units(k) + executorch_units(k, x.dtype, x.dtype), 2)


# (m, k, n): small, decode (m = 1) with a long k, single column, odd sizes across the gemm's
# blocks, k = 1, a wide n.
MM_SHAPES = [(3, 10, 6), (1, 4096, 300), (1, 33, 1), (17, 129, 65), (5, 1, 513), (50, 300, 130)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("m", "k", "n"), MM_SHAPES)
@pytest.mark.parametrize("zero_points", [False, True])
def test_mixed_mm(
    call_op: Any, dtype: torch.dtype, m: int, k: int, n: int, zero_points: bool
) -> None:
    x, weight, generator = random_operands(m, k, (k, n), dtype, seed=m * 7919 + k * 31 + n)
    scales, zeros = random_parameters((k,), dtype, generator, zero_points)
    # ExecuTorch takes no zero points; its Half sums make its bound loose past small k.
    executorch = not zero_points and (dtype == torch.float32 or k <= 64)
    check_mixed_mm(call_op, x, weight, scales, zeros, executorch)


# mixed_linear: the weight's element (j, p) is (weight[j][p] - zeros[j][g]) * scales[j][g] with g
# = p // ceil(k / groups), or the row's one parameter for [n] parameters.


def per_column(parameters: Tensor, k: int) -> Tensor:
    values = parameters.double()
    if values.dim() == 1:
        return values.unsqueeze(1).expand(-1, k)
    group_size = -(-k // values.shape[1])
    return values.repeat_interleave(group_size, dim=1)[:, :k]


def linear_weight(weight: Tensor, scales: Tensor, zeros: OptionalTensor) -> Tensor:
    k = weight.shape[1]
    z = 0.0 if zeros is None else per_column(zeros, k)
    return (weight.double() - z) * per_column(scales, k)


def check_mixed_linear(
    call_op: Any,
    x: Tensor,
    weight: Tensor,
    scales: Tensor,
    zeros: OptionalTensor,
    dtype: torch.dtype | None,
    out_dtype: torch.dtype,
    executorch: bool,
) -> None:
    out = call_op(LINEAR, x, weight, scales, zeros, dtype, out=torch.empty(0, dtype=out_dtype))
    assert out.dtype == out_dtype
    w = linear_weight(weight, scales, zeros)
    terms = x.double().abs() @ w.abs().T
    k = x.shape[1]
    assert_within(out, x.double() @ w.T, terms, kiln_units(k))
    if executorch:
        expected = torch.empty(out.shape, dtype=out_dtype)
        et = ref.OPS.mixed_linear.out(x, weight, scales, None, dtype, out=expected)
        units = kiln_units(k) + executorch_units(k, x.dtype, out_dtype)
        assert_within(out, et, terms, units, 2)


# (m, k, n, groups): per-row scales (groups None), groups dividing k, a shorter last group
# (k = 10 in 4 groups of 3), decode with a long k, one column per group, tiles and k chunks
# crossed in every direction.
LINEAR_SHAPES = [
    (3, 10, 5, None),
    (3, 10, 5, 4),
    (1, 4096, 300, None),
    (1, 4096, 300, 32),
    (17, 129, 65, 3),
    (5, 1, 3, 1),
    (4, 12, 7, 12),
    (70, 600, 130, 5),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("m", "k", "n", "groups"), LINEAR_SHAPES)
@pytest.mark.parametrize("zero_points", [False, True])
def test_mixed_linear(
    call_op: Any, dtype: torch.dtype, m: int, k: int, n: int, groups: int | None, zero_points: bool
) -> None:
    x, weight, generator = random_operands(m, k, (n, k), dtype, seed=m * 7919 + k * 31 + n)
    shape = (n,) if groups is None else (n, groups)
    scales, zeros = random_parameters(shape, dtype, generator, zero_points)
    executorch = not zero_points and (dtype == torch.float32 or k <= 64)
    check_mixed_linear(call_op, x, weight, scales, zeros, None, dtype, executorch)


# Outs: by the dtype argument (Float or Half) or, without it, out's own (Float, Half or Double).
OUT_DTYPES = [
    (torch.float32, None, torch.float16),
    (torch.float16, None, torch.float32),
    (torch.float32, None, torch.float64),
    (torch.float16, None, torch.float64),
    (torch.float32, torch.float16, torch.float16),
    (torch.float16, torch.float32, torch.float32),
    (torch.float16, torch.float16, torch.float16),
]


@pytest.mark.parametrize(("dtype", "dtype_arg", "out_dtype"), OUT_DTYPES)
@pytest.mark.parametrize("groups", [None, 4])
def test_mixed_linear_out_dtypes(
    call_op: Any,
    dtype: torch.dtype,
    dtype_arg: torch.dtype | None,
    out_dtype: torch.dtype,
    groups: int | None,
) -> None:
    x, weight, generator = random_operands(6, 40, (9, 40), dtype, seed=40)
    scales, _ = random_parameters((9,) if groups is None else (9, groups), dtype, generator, False)
    check_mixed_linear(call_op, x, weight, scales, None, dtype_arg, out_dtype, executorch=True)


def test_large(call_op: Any) -> None:
    # Past the gemm's and the tiles' blocks many times over, with every parameter in play.
    x, weight, generator = random_operands(96, 2048, (1000, 2048), torch.float32, seed=5)
    scales, zeros = random_parameters((1000, 16), torch.float32, generator, True)
    check_mixed_linear(call_op, x, weight, scales, zeros, None, torch.float32, executorch=False)
    x, weight, generator = random_operands(96, 1500, (1500, 700), torch.float16, seed=6)
    scales, zeros = random_parameters((1500,), torch.float16, generator, True)
    check_mixed_mm(call_op, x, weight, scales, zeros, executorch=False)


@pytest.mark.parametrize(("m", "k", "n"), [(0, 8, 5), (4, 8, 0), (4, 0, 5), (0, 0, 0)])
def test_empty(call_op: Any, m: int, k: int, n: int) -> None:
    # An empty k sums nothing: zeros (ExecuTorch's mixed_linear divides by zero there).
    x, weight, generator = random_operands(m, k, (n, k), torch.float32, seed=1)
    scales, zeros = random_parameters((n, 2), torch.float32, generator, True)
    out = call_op(LINEAR, x, weight, scales, zeros, None, out=torch.empty(3, 3))
    torch.testing.assert_close(out, torch.zeros(m, n), rtol=0, atol=0)
    mm_scales = torch.rand(k, generator=generator)
    out = call_op(MM, x, weight.T.contiguous(), mm_scales, None, out=torch.empty(3))
    torch.testing.assert_close(out, torch.zeros(m, n), rtol=0, atol=0)


def test_threads_give_the_same_bits(call_op: Any) -> None:
    x, weight, generator = random_operands(40, 300, (260, 300), torch.float16, seed=2)
    scales, zeros = random_parameters((260, 3), torch.float16, generator, True)
    mm_scales = torch.rand(300, generator=generator).half()
    results = []
    try:
        for threads in (1, 2):
            kiln.set_num_threads(threads)
            linear = call_op(LINEAR, x, weight, scales, zeros, None, out=torch.empty(0).half())
            mm = call_op(MM, x, weight.T.contiguous(), mm_scales, None, out=torch.empty(0).half())
            results.append((linear, mm))
    finally:
        kiln.set_num_threads(1)
    for one, two in zip(results[0], results[1], strict=True):
        assert torch.equal(one, two)


def test_bad_input(call_op: Any) -> None:
    x, weight, generator = random_operands(2, 8, (8, 6), torch.float32, seed=3)
    scales, zeros = random_parameters((8,), torch.float32, generator, True)
    assert zeros is not None
    out = torch.empty(0)
    with raises(call_op, "input has dtype"):
        call_op(MM, x.double(), weight, scales.double(), None, out=out.double())
    with raises(call_op, "weight has dtype"):
        call_op(MM, x, weight.float(), scales, None, out=out)
    with raises(call_op, "input must have 2 dims"):
        call_op(MM, x[0], weight, scales, None, out=out)
    with raises(call_op, r"weight has shape \[8, 6\] \(\[k, n\]\); pass a weight of 7 rows"):
        call_op(MM, x[:, :7].contiguous(), weight, scales, None, out=out)
    with raises(call_op, r"weight_scales has shape \[7\]; pass shape \[8\]"):
        call_op(MM, x, weight, scales[:7].contiguous(), None, out=out)
    with raises(call_op, "weight_scales has dtype Half but input has Float"):
        call_op(MM, x, weight, scales.half(), None, out=out)
    with raises(call_op, "weight_zero_points has shape"):
        call_op(MM, x, weight, scales, zeros[:4].contiguous(), out=out)
    with raises(call_op, "weight_zero_points has dtype Long"):
        call_op(MM, x, weight, scales, zeros.long(), out=out)
    with raises(call_op, "out has dtype Half but input has Float"):
        call_op(MM, x, weight, scales, None, out=out.half())

    w = weight.T.contiguous()  # [6, 8]: n = 6, k = 8
    row_scales = scales[:6].contiguous()
    with raises(call_op, r"input has shape \[2, 7\] but weight has shape \[6, 8\]"):
        call_op(LINEAR, x[:, :7].contiguous(), w, row_scales, None, None, out=out)
    with raises(call_op, r"weight_scales has shape \[8\]; pass shape \[6\].* or \[6, groups\]"):
        call_op(LINEAR, x, w, scales, None, None, out=out)
    with raises(call_op, r"weight_scales has shape \[6, 6\]: 6 groups of ceil\(8 / 6\)"):
        # 6 groups of 8 columns take 2 columns each, which makes 4 groups: ExecuTorch would read
        # scale rows as 4 long.
        call_op(LINEAR, x, w, torch.rand(6, 6), None, None, out=out)
    with raises(call_op, "weight_scales has shape"):
        call_op(LINEAR, x, w, torch.rand(6, 9), None, None, out=out)
    with raises(call_op, "dtype is BFloat16; pass torch.float32 or torch.float16"):
        call_op(LINEAR, x, w, row_scales, None, torch.bfloat16, out=out.bfloat16())
    with raises(call_op, "out has dtype Float but dtype is Half"):
        call_op(LINEAR, x, w, row_scales, None, torch.float16, out=out)
    with raises(call_op, "out has dtype BFloat16; pass a Float, Half or Double out"):
        call_op(LINEAR, x, w, row_scales, None, None, out=out.bfloat16())
    with raises(call_op, "weight_zero_points has shape"):
        call_op(LINEAR, x, w, torch.rand(6, 2), torch.rand(6), None, out=out)


def test_out_over_a_factor_is_refused(call_op: Any) -> None:
    # Kiln's kernels write out while they read the factors; libtorch computes into a new tensor
    # and copies, so only the portable kernels refuse.
    if not is_portable(call_op):
        pytest.skip("libtorch's kernels take an out that overlaps the input")
    x, weight, generator = random_operands(3, 8, (8, 8), torch.float32, seed=4)
    scales, _ = random_parameters((8,), torch.float32, generator, False)
    with raises(call_op, "out shares memory with input"):
        call_op(LINEAR, x, weight, scales, None, None, out=x)
    with raises(call_op, "out shares memory with input"):
        call_op(MM, x, weight, scales, None, out=x)
