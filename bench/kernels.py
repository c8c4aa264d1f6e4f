"""Kiln portable kernels against ATen, side by side in one process on identical inputs, at the
same thread count (--threads, default 1).

Kiln's time is the boxed kernel call measured natively (kiln._C.call_boxed with repeat); ATen's
is the same out-variant op (torch.ops.aten.<op>.<overload>) timed by torch.utils.benchmark; both
on the same tensors. Prints a table of Kiln/ATen ratios (lower is better; 1.0 = as fast as ATen).
Cases live in bench/cases/<family>.py; --family runs one family. --cpu-time times both sides by
the thread's CPU time instead, so that a machine other work loads does not skew the ratio.
--threads N runs both on N threads (kiln.set_num_threads, torch.set_num_threads) and times wall
time (CPU time does not add up across threads) in short blocks, Kiln's and ATen's alternating
over --rounds rounds, keeping each side's best block: on a loaded machine a descheduled worker
slows whichever block it hits. --cases picks cases by label.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import torch
import torch.utils.benchmark as benchmark
from cases import Case, all_cases

import kiln
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


def _threaded_ns(
    case: Case, outs: tuple[torch.Tensor, ...], min_time: float, rounds: int
) -> tuple[float, float]:
    """(Kiln, ATen) wall nanoseconds per call on the current thread counts. Each round times one
    side, then the other: a run of short blocks of calls (about 0.3 ms each) back to back, so that
    the side's workers stay awake, keeping its best block; between sides a pause lets the idle
    workers (which spin a while, pthreadpool ~5 ms) go to sleep, so neither side runs against the
    other's spinning threads. On a loaded machine a block in which a worker was descheduled is
    slow on either side; the best blocks are the ones that ran unhindered."""
    call = bind_call(case.op, case.args, outs if len(outs) > 1 else outs[0], case.kwargs)
    case.aten(outs)
    start = time.perf_counter_ns()
    case.aten(outs)
    calls = max(1, int(3e5 / max(1, time.perf_counter_ns() - start)))
    blocks = max(5, int(min_time * 1e9 / 3e5 / 10))

    def kiln_block() -> float:
        outcome = _C.call_boxed(call.op.name, ["portable"], call.tagged, repeat=calls)
        if outcome.error != "Ok":
            raise SystemExit(f"{case.label}: {outcome.message}")
        return outcome.ns_per_call

    def aten_block() -> float:
        start = time.perf_counter_ns()
        for _ in range(calls):
            case.aten(outs)
        return (time.perf_counter_ns() - start) / calls

    best = {kiln_block: float("inf"), aten_block: float("inf")}
    for _ in range(rounds):
        for block in best:
            time.sleep(0.02)
            block()  # wakes the workers
            best[block] = min(best[block], *(block() for _ in range(blocks)))
    return best[kiln_block], best[aten_block]


def measure(
    case: Case, threads: int, min_time: float, cpu_time: bool = False, rounds: int = 3
) -> tuple[float, float]:
    """(Kiln, ATen) nanoseconds per call of `case` on the current thread count `threads` (set by
    the caller on both sides), after checking that Kiln's out matches ATen's."""
    references = case.aten(case.empty_outs())
    outs = tuple(torch.empty_like(r) for r in references)
    if threads > 1:
        kiln_ns, aten_ns = _threaded_ns(case, outs, min_time, rounds)
    else:
        aten_ns = _aten_ns(case, outs, min_time, cpu_time)
        repeat = max(3, int(min_time * 1e9 / aten_ns / 5))
        kiln_ns = _kiln_ns(case, outs, repeat, cpu_time)
    # The first out holds the values; secondary outs (indices) may differ on ties, and the op
    # tests check them properly (random ops by their distribution).
    if case.deterministic:
        # 16-bit results may differ by a rounding of an intermediate value.
        loose = references[0].dtype in (torch.float16, torch.bfloat16)
        tolerance = 2e-2 if loose else 1e-4
        torch.testing.assert_close(outs[0], references[0], rtol=tolerance, atol=tolerance)
    else:
        assert outs[0].shape == references[0].shape, case.label
    return kiln_ns, aten_ns


def set_threads(threads: int) -> None:
    """The same intra-op thread count for ATen and Kiln."""
    torch.set_num_threads(threads)
    kiln.set_num_threads(threads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds per ATen case")
    parser.add_argument("--family", help="run only bench/cases/<family>.py")
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time both sides by the thread's CPU time, for a machine other work loads",
    )
    parser.add_argument("--threads", type=int, default=1, help="threads for both Kiln and ATen")
    parser.add_argument("--rounds", type=int, default=3, help="with --threads: alternations")
    parser.add_argument("--cases", help="comma-separated parts of case labels to run")
    options = parser.parse_args()
    if options.threads > 1 and options.cpu_time:
        parser.error("--cpu-time measures one thread; with --threads, wall time is measured")
    set_threads(options.threads)
    wanted = options.cases.split(",") if options.cases else None
    print(
        f"{'case':32} {'kiln us':>10} {'aten us':>10} {'kiln/aten':>10}   threads={options.threads}"
    )
    for case in all_cases(options.family):
        if wanted is not None and not any(part in case.label for part in wanted):
            continue
        kiln_ns, aten_ns = measure(
            case, options.threads, options.min_time, options.cpu_time, options.rounds
        )
        print(
            f"{case.label:32} {kiln_ns / 1e3:10.1f} {aten_ns / 1e3:10.1f} {kiln_ns / aten_ns:9.2f}x"
        )


if __name__ == "__main__":
    main()
