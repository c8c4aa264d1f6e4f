"""Intra-op threads (kiln.set_num_threads): every parallel kernel gives the same bits on 1 and 2
threads, at sizes above its threshold, and agrees with torch; the thread-count API and its
errors."""

from __future__ import annotations

import faulthandler
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import torch

import kiln

aten = torch.ops.aten


@pytest.fixture(autouse=True)
def one_thread_after() -> Iterator[None]:
    yield
    kiln.set_num_threads(1)


def _make(*sizes: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(*sizes, generator=generator)
    if dtype.is_floating_point:
        return x.to(dtype)
    return (x * 20).to(dtype)


@dataclass(frozen=True)
class ThreadCase:
    label: str
    op: str
    args: Callable[[], tuple[Any, ...]]  # fresh arguments (mutated ones are rebuilt per run)
    outs: tuple[torch.dtype, ...] = (torch.float32,)
    reference: Callable[..., Any] | None = None  # torch's result for the same arguments
    atol: float = 1e-5
    kwargs: tuple[tuple[str, Any], ...] = ()


def _elementwise() -> list[ThreadCase]:
    n = 1 << 20
    return [
        ThreadCase(
            "add", "aten::add.out", lambda: (_make(n), _make(n, seed=1)), reference=torch.add
        ),
        ThreadCase(
            "row-broadcast add, rows split inside",
            "aten::add.out",
            lambda: (_make(1000, 333), _make(333, seed=1)),
            reference=torch.add,
        ),
        ThreadCase(
            "short repeated rows, tiled",
            "aten::add.out",
            lambda: (_make(300_001, 4), _make(4, seed=1)),
            reference=torch.add,
        ),
        ThreadCase(
            "short rows against a column, tiled",
            "aten::mul.out",
            lambda: (_make(300_001, 3), _make(300_001, 1, seed=1)),
            reference=torch.mul,
        ),
        ThreadCase(
            "pow of short repeated rows, tiled",
            "aten::pow.Tensor_Tensor_out",
            lambda: (_make(100_003, 5).abs(), _make(5, seed=1)),
            reference=torch.pow,
        ),
        ThreadCase(
            "add float16",
            "aten::add.out",
            lambda: (_make(n, dtype=torch.float16), _make(n, dtype=torch.float16, seed=1)),
            (torch.float16,),
            torch.add,
            1e-2,
        ),
        ThreadCase(
            "int8 + float32 (converting path)",
            "aten::add.out",
            lambda: (_make(300_001, dtype=torch.int8), _make(300_001, seed=1)),
            reference=torch.add,
        ),
        ThreadCase(
            "mul scalar broadcast",
            "aten::mul.out",
            lambda: (_make(700, 700), _make(700, 1, seed=1)),
            reference=torch.mul,
        ),
        ThreadCase(
            "eq into bool",
            "aten::eq.Tensor_out",
            lambda: (_make(n, dtype=torch.int32), _make(n, dtype=torch.int32, seed=1)),
            (torch.bool,),
            torch.eq,
        ),
        ThreadCase(
            "remainder int32",
            "aten::remainder.Tensor_out",
            lambda: (_make(n, dtype=torch.int32), _make(n, dtype=torch.int32, seed=1).abs() + 1),
            (torch.int32,),
            torch.remainder,
        ),
        ThreadCase(
            "_to_copy float32 to float16",
            "aten::_to_copy.out",
            lambda: (_make(n),),
            (torch.float16,),
        ),
        ThreadCase(
            "_to_copy bfloat16 to float32",
            "aten::_to_copy.out",
            lambda: (_make(300_001, dtype=torch.bfloat16),),
            reference=lambda x: x.float(),
        ),
        ThreadCase("relu", "aten::relu.out", lambda: (_make(n),), reference=torch.relu),
        ThreadCase("exp", "aten::exp.out", lambda: (_make(n),), reference=torch.exp),
        ThreadCase(
            "exp of int32 (converting path)",
            "aten::exp.out",
            lambda: (_make(300_001, dtype=torch.int32) % 10,),
            reference=torch.exp,
            atol=1e-3,
        ),
        ThreadCase(
            "gelu bfloat16",
            "aten::gelu.out",
            lambda: (_make(n, dtype=torch.bfloat16),),
            (torch.bfloat16,),
            lambda x: torch.nn.functional.gelu(x),
            1e-2,
        ),
    ]


def _rows() -> list[ThreadCase]:
    x = lambda: (_make(256, 1024),)  # noqa: E731
    return [
        ThreadCase(
            "softmax rows",
            "aten::_softmax.out",
            lambda: (*x(), -1, False),
            reference=lambda t, d, h: torch.softmax(t, d),
        ),
        ThreadCase(
            "log_softmax columns",
            "aten::_log_softmax.out",
            lambda: (*x(), 0, False),
            reference=lambda t, d, h: torch.log_softmax(t, d),
        ),
        ThreadCase(
            "softmax middle dim, float16",
            "aten::_softmax.out",
            lambda: (_make(16, 64, 300, dtype=torch.float16), 1, False),
            (torch.float16,),
            lambda t, d, h: torch.softmax(t.float(), d).half(),
            1e-3,
        ),
        ThreadCase(
            "sum over rows",
            "aten::sum.IntList_out",
            lambda: (*x(), [-1], False),
            reference=lambda t, d, k: t.sum(d, keepdim=k),
            atol=1e-3,
        ),
        ThreadCase(
            "sum over columns",
            "aten::sum.IntList_out",
            lambda: (*x(), [0], False),
            reference=lambda t, d, k: t.sum(d, keepdim=k),
            atol=1e-3,
        ),
        ThreadCase(
            "mean over the middle dim",
            "aten::mean.out",
            lambda: (_make(64, 128, 70), [1], True),
            reference=lambda t, d, k: t.mean(d, keepdim=k),
        ),
        ThreadCase(
            "layer norm",
            "aten::native_layer_norm.out",
            lambda: (*x(), [1024], _make(1024, seed=1), _make(1024, seed=2), 1e-5),
            (torch.float32,) * 3,
            aten.native_layer_norm,
            1e-4,
        ),
        ThreadCase(
            "group norm",
            "aten::native_group_norm.out",
            lambda: (_make(8, 32, 32, 32), _make(32, seed=1), None, 8, 32, 1024, 4, 1e-5),
            (torch.float32,) * 3,
            aten.native_group_norm,
            1e-4,
        ),
        ThreadCase(
            "batch norm, training",
            "aten::_native_batch_norm_legit.out",
            lambda: (
                _make(8, 64, 32, 32),
                None,
                None,
                torch.zeros(64),
                torch.ones(64),
                True,
                0.1,
                1e-5,
            ),
            (torch.float32,) * 3,
            aten._native_batch_norm_legit,
            1e-4,
        ),
        ThreadCase(
            "batch norm, inference",
            "aten::_native_batch_norm_legit_no_training.out",
            lambda: (
                _make(8, 64, 32, 32),
                _make(64, seed=1),
                None,
                torch.zeros(64),
                torch.ones(64),
                0.1,
                1e-5,
            ),
            (torch.float32,) * 3,
            aten._native_batch_norm_legit_no_training,
            1e-4,
        ),
        ThreadCase("rms norm", "kiln::rms_norm.out", lambda: (*x(), _make(1024, seed=1), 1e-6)),
    ]


def _gemm() -> list[ThreadCase]:
    conv = (_make(2, 16, 32, 32), _make(32, 16, 3, 3, seed=1), _make(32, seed=2))
    return [
        ThreadCase(
            "mm",
            "aten::mm.out",
            lambda: (_make(256, 256), _make(256, 256, seed=1)),
            reference=torch.mm,
            atol=1e-3,
        ),
        ThreadCase(
            "mm tall (rows split)",
            "aten::mm.out",
            lambda: (_make(1000, 64), _make(64, 40, seed=1)),
            reference=torch.mm,
            atol=1e-3,
        ),
        ThreadCase(
            "linear of 3 rows (dot products, columns split)",
            "aten::linear.out",
            lambda: (_make(3, 700), _make(1024, 700, seed=1), _make(1024, seed=2)),
            reference=torch.nn.functional.linear,
            atol=1e-3,
        ),
        ThreadCase(
            "linear of 2 bfloat16 rows (dot products)",
            "aten::linear.out",
            lambda: (
                _make(2, 700, dtype=torch.bfloat16),
                _make(1024, 700, dtype=torch.bfloat16, seed=1),
            ),
            (torch.bfloat16,),
            torch.nn.functional.linear,
            0.1,
        ),
        ThreadCase(
            "mm float16",
            "aten::mm.out",
            lambda: (
                _make(200, 256, dtype=torch.float16),
                _make(256, 300, dtype=torch.float16, seed=1),
            ),
            (torch.float16,),
            torch.mm,
            0.1,
        ),
        ThreadCase(
            "mm int64",
            "aten::mm.out",
            lambda: (
                _make(128, 256, dtype=torch.int64),
                _make(256, 200, dtype=torch.int64, seed=1),
            ),
            (torch.int64,),
            torch.mm,
        ),
        ThreadCase(
            "addmm",
            "aten::addmm.out",
            lambda: (_make(300), _make(256, 200), _make(200, 300, seed=1)),
            reference=lambda c, a, b, **kw: torch.addmm(c, a, b, **kw),
            atol=1e-3,
            kwargs=(("beta", 0.5), ("alpha", 2.0)),
        ),
        ThreadCase(
            # Four batches on two threads run side by side; three split each product.
            "bmm",
            "aten::bmm.out",
            lambda: (_make(4, 128, 256), _make(4, 256, 128, seed=1)),
            reference=torch.bmm,
            atol=1e-3,
        ),
        ThreadCase(
            "bmm of 3",
            "aten::bmm.out",
            lambda: (_make(3, 197, 64), _make(3, 64, 197, seed=1)),
            reference=torch.bmm,
            atol=1e-3,
        ),
        ThreadCase(
            "conv2d",
            "aten::convolution.out",
            lambda: (*conv, [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
            reference=aten.convolution,
            atol=1e-3,
        ),
        ThreadCase(
            # Groups of 8 channels: too small to split, they run side by side.
            "grouped conv2d",
            "aten::convolution.out",
            lambda: (
                _make(2, 48, 28, 28),
                _make(48, 8, 3, 3, seed=1),
                _make(48, seed=2),
                [1, 1],
                [1, 1],
                [1, 1],
                False,
                [0, 0],
                6,
            ),
            reference=aten.convolution,
            atol=1e-3,
        ),
        ThreadCase(
            "conv_transpose2d",
            "aten::convolution.out",
            lambda: (
                _make(2, 32, 32, 32),
                _make(32, 16, 3, 3, seed=1),
                None,
                [1, 1],
                [1, 1],
                [1, 1],
                True,
                [0, 0],
                1,
            ),
            reference=aten.convolution,
            atol=1e-3,
        ),
    ]


def _copies() -> list[ThreadCase]:
    # Copies of at least two 256 KiB chunks split along their outermost dim (or their bytes).
    return [
        ThreadCase(
            "permute_copy",
            "aten::permute_copy.out",
            lambda: (_make(64, 128, 96), [2, 0, 1]),
            reference=lambda t, d: t.permute(d).contiguous(),
        ),
        ThreadCase(
            "view_copy",
            "aten::view_copy.out",
            lambda: (_make(1024, 512), [512, 1024]),
            reference=lambda t, s: t.reshape(s).clone(),
        ),
        ThreadCase(
            "slice_copy of every other row",
            "aten::slice_copy.Tensor_out",
            lambda: (_make(2048, 300), 0, 1, 2047, 2),
            reference=lambda t, d, b, e, s: t[b:e:s].clone(),
        ),
    ]


CASES = _elementwise() + _rows() + _gemm() + _copies()


def _run(case: ThreadCase) -> tuple[torch.Tensor, ...]:
    outs = tuple(torch.empty(0, dtype=dtype) for dtype in case.outs)
    kiln.call_op(
        case.op,
        *case.args(),
        out=outs if len(outs) > 1 else outs[0],
        backend="portable",
        **dict(case.kwargs),
    )
    return outs


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.contiguous().view(torch.uint8)


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
def test_two_threads_give_the_single_threaded_bits(case: ThreadCase) -> None:
    kiln.set_num_threads(1)
    single = _run(case)
    kiln.set_num_threads(2)
    double = _run(case)
    for one, two in zip(single, double, strict=True):
        assert one.shape == two.shape and one.dtype == two.dtype
        assert torch.equal(_bits(one), _bits(two)), case.label
    if case.reference is not None:
        expected = case.reference(*case.args(), **dict(case.kwargs))
        expected = expected if isinstance(expected, (tuple, list)) else (expected,)
        for got, want in zip(single, expected, strict=False):
            torch.testing.assert_close(got, want.to(got.dtype), rtol=1e-3, atol=case.atol)


def test_a_program_runs_multi_threaded_with_the_same_outputs() -> None:
    model = torch.nn.Sequential(
        torch.nn.Conv2d(16, 32, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.Flatten(),
        torch.nn.Linear(32 * 32 * 32, 64),
    ).eval()
    x = _make(2, 16, 32, 32)
    program = kiln.load(kiln.export(model, (x,)))
    kiln.set_num_threads(1)
    (single,) = program.run(x)
    kiln.set_num_threads(2)
    (double,) = program.run(x)
    assert torch.equal(single, double)
    torch.testing.assert_close(single, model(x).detach(), rtol=1e-4, atol=1e-4)


def test_an_integer_division_by_zero_is_reported_on_any_thread() -> None:
    a = _make(1 << 20, dtype=torch.int32)
    b = torch.ones(1 << 20, dtype=torch.int32)
    b[-5] = 0  # in the second thread's chunk
    for threads in (1, 2):
        kiln.set_num_threads(threads)
        with pytest.raises(kiln.KilnError, match="ZeroDivisionError"):
            kiln.call_op("aten::remainder.Tensor_out", a, b, out=torch.empty(0, dtype=torch.int32))


def test_a_forked_child_starts_over_on_one_thread() -> None:
    kiln.set_num_threads(2)
    a = _make(1 << 20)
    expected = a + a
    pid = os.fork()
    if pid == 0:  # the child: the parent's workers are gone; waiting for them would hang
        faulthandler.dump_traceback_later(60, exit=True)  # a hang fails instead of stalling
        status = 1
        try:
            out = torch.empty(0)
            kiln.call_op("aten::add.out", a, a, out=out)
            # numpy compares: torch's OpenMP threads do not survive a fork either.
            same = (out.numpy() == expected.numpy()).all()
            status = 0 if kiln.get_num_threads() == 1 and same else 2
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert kiln.get_num_threads() == 2


def test_the_thread_count_is_the_callers() -> None:
    assert kiln.get_num_threads() == 1
    kiln.set_num_threads(3)
    assert kiln.get_num_threads() == 3
    kiln.set_num_threads(1)
    assert kiln.get_num_threads() == 1


def test_bad_thread_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1, got 0"):
        kiln.set_num_threads(0)
    with pytest.raises(TypeError, match="must be an int"):
        kiln.set_num_threads(2.0)  # type: ignore[arg-type]
    assert kiln.get_num_threads() == 1
