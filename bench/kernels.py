"""Kiln portable kernels against ATen, side by side in one process on identical inputs, 1 thread.

Kiln's time is the boxed kernel call measured natively (kiln._C.call_boxed with repeat); ATen's
is the same out-variant op (torch.ops.aten.<op>.<overload>) timed by torch.utils.benchmark; both
on the same tensors. Prints a table of Kiln/ATen ratios (lower is better; 1.0 = as fast as ATen).
Cases live in bench/cases/<family>.py; --family runs one family. --cpu-time times both sides by
the thread's CPU time instead, so that a machine other work loads does not skew the ratio.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import torch
import torch.utils.benchmark as benchmark
from cases import Case, all_cases

from kiln import _C
from kiln._call import bind_call


def _aten_ns(
    case: Case, outs: tuple[torch.Tensor, ...], min_time: float, cpu_time: bool = False
) -> float:
    if cpu_time:
        return _thread_ns(lambda: case.aten(outs), min_time)
    timer = benchmark.Timer(stmt="fn(outs)", globals={"fn": case.aten, "outs": outs}, num_threads=1)
    return timer.blocked_autorange(min_run_time=min_time).median * 1e9


def _thread_ns(fn: Any, min_time: float) -> float:
    """The best of five runs of the thread's CPU time per call of fn (for a machine other work
    loads: time the thread spends descheduled does not count)."""
    fn()
    start = time.thread_time_ns()
    calls = 0
    while time.thread_time_ns() - start < min_time * 1e9 / 5:
        fn()
        calls += 1
    best = float("inf")
    for _ in range(5):
        start = time.thread_time_ns()
        for _ in range(calls):
            fn()
        best = min(best, (time.thread_time_ns() - start) / calls)
    return best


def _kiln_ns(
    case: Case, outs: tuple[torch.Tensor, ...], repeat: int, cpu_time: bool = False
) -> float:
    call = bind_call(case.op, case.args, outs if len(outs) > 1 else outs[0], case.kwargs)
    _C.call_boxed(call.op.name, ["portable"], call.tagged, repeat=max(1, repeat // 10))
    best = float("inf")
    for _ in range(5):
        start = time.thread_time_ns()
        outcome = _C.call_boxed(call.op.name, ["portable"], call.tagged, repeat=repeat)
        cpu_ns = (time.thread_time_ns() - start) / repeat
        if outcome.error != "Ok":
            raise SystemExit(f"{case.label}: {outcome.message}")
        best = min(best, cpu_ns if cpu_time else outcome.ns_per_call)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds per ATen case")
    parser.add_argument("--family", help="run only bench/cases/<family>.py")
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time both sides by the thread's CPU time, for a machine other work loads",
    )
    options = parser.parse_args()
    torch.set_num_threads(1)
    print(f"{'case':32} {'kiln us':>10} {'aten us':>10} {'kiln/aten':>10}")
    for case in all_cases(options.family):
        references = case.aten(case.empty_outs())
        outs = tuple(torch.empty_like(r) for r in references)
        aten = _aten_ns(case, outs, options.min_time, options.cpu_time)
        repeat = max(3, int(options.min_time * 1e9 / aten / 5))
        kiln = _kiln_ns(case, outs, repeat, options.cpu_time)
        # The first out holds the values; secondary outs (indices) may differ on ties, and the
        # op tests check them properly (random ops by their distribution).
        if case.deterministic:
            # 16-bit results may differ by a rounding of an intermediate value.
            loose = references[0].dtype in (torch.float16, torch.bfloat16)
            tolerance = 2e-2 if loose else 1e-4
            torch.testing.assert_close(outs[0], references[0], rtol=tolerance, atol=tolerance)
        else:
            assert outs[0].shape == references[0].shape, case.label
        print(f"{case.label:32} {kiln / 1e3:10.1f} {aten / 1e3:10.1f} {kiln / aten:9.2f}x")


if __name__ == "__main__":
    main()
