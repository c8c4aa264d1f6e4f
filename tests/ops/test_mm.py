"""aten::mm.out against torch."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, eps, magnitude, raises
from strategies import ALL_DTYPES, make_tensor, out_tensors, tensors

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
MM_DTYPES = [d for d in ALL_DTYPES if d != torch.bool]


def mm_atol(a: torch.Tensor, b: torch.Tensor) -> float:
    """Accumulation-order room: k products of the largest magnitudes, a few ulps each."""
    if not a.dtype.is_floating_point:
        return 0.0
    k = a.shape[1] if a.dim() == 2 else 1
    return 4 * eps(a.dtype) * max(k, 1) * magnitude(a) * magnitude(b)


def check_mm(call_op: Any, a: torch.Tensor, b: torch.Tensor) -> None:
    """mm of a and b into an out of their dtype, against torch."""
    out = torch.empty(0, dtype=a.dtype)
    check_op(call_op, "aten::mm.out", aten.mm.out, (a, b), out=out, atol=mm_atol(a, b))


@SETTINGS
@given(data=st.data())
def test_mm_matches_torch(call_op: Any, data: Any) -> None:
    n, k, m = (data.draw(st.integers(0, 9)) for _ in range(3))
    dtype = data.draw(st.sampled_from(MM_DTYPES))
    a = data.draw(tensors(dtype, (n, k), special=False, magnitude=3.0))
    b = data.draw(tensors(dtype, (k, m), special=False, magnitude=3.0))
    out = data.draw(out_tensors(dtype, (n, m), other_dtype_p=0.1))
    check_op(call_op, "aten::mm.out", aten.mm.out, (a, b), out=out, atol=mm_atol(a, b))


@pytest.mark.parametrize("dtype", MM_DTYPES)
@pytest.mark.parametrize(("n", "k", "m"), [(70, 150, 45), (1, 300, 1), (49, 1, 65), (3, 0, 4)])
def test_mm_blocked_sizes(call_op: Any, dtype: torch.dtype, n: int, k: int, m: int) -> None:
    # Sizes around and past the gemm's register tiles and cache blocks; integers wrap.
    check_mm(
        call_op,
        make_tensor(dtype, (n, k), 10, magnitude=2.0),
        make_tensor(dtype, (k, m), 11, magnitude=2.0),
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.float16])
@pytest.mark.parametrize("rows", [1, 2, 5, 6, 8, 12])
def test_mm_few_rows_read_b_in_place(call_op: Any, dtype: torch.dtype, rows: int) -> None:
    # One row of floating tiles (6 rows; 12 with AVX-512's tiles, which products large enough
    # take from 7 rows) reads B's whole 128-byte panels in place and packs the partial last one
    # (int64 packs them all): k spans several 128-deep blocks, and the widths are whole panels,
    # whole panels and a part, and a part alone.
    for k, n in [(300, 512), (130, 70), (64, 517), (5, 7)]:
        a = make_tensor(dtype, (rows, k), rows + k, magnitude=2.0)
        check_mm(call_op, a, make_tensor(dtype, (k, n), n, magnitude=2.0))


@pytest.mark.parametrize("rows", [1, 2, 3, 4])
def test_mm_few_float_rows_stream_b(call_op: Any, rows: int) -> None:
    # Up to four float rows against a row-major B (a decode step's folded weight) stream B's
    # rows in 512-column strips, four rows of B a pass: k around those passes (and 0), widths
    # inside one vector, at and past the vectors and the strips.
    for k, n in [(0, 5), (1, 16), (3, 17), (4, 15), (5, 530), (301, 1100), (64, 1)]:
        a = make_tensor(torch.float32, (rows, k), k + n)
        check_mm(call_op, a, make_tensor(torch.float32, (k, n), n + rows, magnitude=2.0))


# mm through the portable kernels in a process whose gemm tiles KILN_CPU_ISA capped: products of
# few and many rows, against a row-major B and (linear's weight) a transposed one.
NARROWER_TILES_SCRIPT = """
import torch
import kiln

for dtype in (torch.float32, torch.float64, torch.int64, torch.float16):
    eps = torch.finfo(dtype).eps if dtype.is_floating_point else 0.0
    for n, k, m in ((1, 300, 512), (7, 130, 70), (70, 150, 45), (13, 64, 517), (3, 0, 4)):
        gen = torch.Generator().manual_seed(n * k + m)
        a = (torch.randn(n, k, generator=gen) * 4).to(dtype)
        b = (torch.randn(k, m, generator=gen) * 4).to(dtype)
        weight = (torch.randn(m, k, generator=gen) * 4).to(dtype)
        atol = 4 * eps * max(k, 1) * 16 * 16
        got = kiln.call_op("aten::mm.out", a, b, out=torch.empty(0, dtype=dtype))
        want = torch.mm(a.double(), b.double())
        torch.testing.assert_close(got.double(), want, atol=atol, rtol=eps)
        got = kiln.call_op("aten::linear.out", a, weight, out=torch.empty(0, dtype=dtype))
        want = torch.mm(a.double(), weight.double().t())
        torch.testing.assert_close(got.double(), want, atol=atol, rtol=eps)
print("checked")
"""


@pytest.mark.parametrize("isa", ["x86-64-v3", "baseline"])
def test_mm_on_narrower_tiles(isa: str) -> None:
    # The machines that run the tests have AVX-512, whose tiles every other test gets for large
    # products (and int64 for all): the AVX2 and baseline tiles run here, capped by KILN_CPU_ISA.
    env = {**os.environ, "KILN_CPU_ISA": isa}
    result = subprocess.run(
        [sys.executable, "-c", NARROWER_TILES_SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0 and result.stdout.strip() == "checked", result.stderr


def test_mm_nan_and_inf(call_op: Any) -> None:
    a = make_tensor(torch.float32, (5, 6), 12, special=True)
    b = make_tensor(torch.float32, (6, 7), 13, special=True)
    check_op(call_op, "aten::mm.out", aten.mm.out, (a, b), out=torch.empty(0))


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        (torch.ones(2, 3, 1), torch.ones(3, 2), "self must be a matrix"),
        (torch.ones(2, 3), torch.ones(3), "mat2 must be a matrix"),
        (torch.ones(2, 3), torch.ones(2, 3), r"shapes cannot be multiplied \(2x3 and 2x3\)"),
        (torch.ones(2, 3), torch.ones(3, 2, dtype=torch.float64), "same dtype"),
        (torch.ones(2, 2, dtype=torch.bool), torch.ones(2, 2, dtype=torch.bool), "Bool"),
    ],
)
def test_mm_errors(call_op: Any, a: torch.Tensor, b: torch.Tensor, match: str) -> None:
    with pytest.raises((RuntimeError, NotImplementedError)):
        aten.mm.out(a, b, out=torch.empty(0, dtype=a.dtype))
    with raises(call_op, match):
        call_op("aten::mm.out", a, b, out=torch.empty(0, dtype=a.dtype))


def test_mm_out_dtype_must_match(call_op: Any) -> None:
    with raises(call_op, "Expected out tensor to have dtype Float"):
        call_op(
            "aten::mm.out",
            torch.ones(2, 2),
            torch.ones(2, 2),
            out=torch.empty(0, dtype=torch.float64),
        )
