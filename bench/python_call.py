"""kiln.call_op against the same torch call, per call from Python, side by side in one process.

Each case calls one operator on tiny tensors, so that the time is the call path (binding,
conversion, dispatch) rather than the kernel. Both sides are timed by the thread's CPU time, in
alternating batches, and each keeps its best batch: a machine other work loads skews neither.
`rows()` gives the table to other commands as (label, kiln µs, torch µs).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

import kiln


@dataclass(frozen=True)
class CallCase:
    label: str
    kiln: Callable[[], Any]
    torch: Callable[[], Any]


def _cases() -> list[CallCase]:
    a, b, out = torch.ones(1), torch.ones(1), torch.empty(1)
    x, y = torch.ones(2, 3), torch.ones(2, 3)
    cat_out = torch.empty(4, 3)
    return [
        CallCase(
            "add.out, 1 element",
            lambda: kiln.call_op("aten::add.out", a, b, out=out),
            lambda: torch.add(a, b, out=out),
        ),
        CallCase(
            "add.out, alpha= keyword, 1 element",
            lambda: kiln.call_op("aten::add.out", a, b, alpha=2, out=out),
            lambda: torch.add(a, b, alpha=2, out=out),
        ),
        CallCase(
            "clamp.out, 2 scalars, 1 element",
            lambda: kiln.call_op("aten::clamp.out", a, -0.5, 0.5, out=out),
            lambda: torch.clamp(a, -0.5, 0.5, out=out),
        ),
        CallCase(
            "cat.out, 2 tensors, 2x3",
            lambda: kiln.call_op("aten::cat.out", [x, y], 0, out=cat_out),
            lambda: torch.cat([x, y], 0, out=cat_out),
        ),
    ]


def _batch_ns(fn: Callable[[], Any], calls: int) -> float:
    start = time.thread_time_ns()
    for _ in range(calls):
        fn()
    return (time.thread_time_ns() - start) / calls


def _best_pair_ns(case: CallCase, calls: int, rounds: int) -> tuple[float, float]:
    """The best batch of each side over `rounds` alternating batches, in ns per call."""
    case.kiln(), case.torch()  # the first call binds the operator
    kiln_ns = torch_ns = float("inf")
    for _ in range(rounds):
        kiln_ns = min(kiln_ns, _batch_ns(case.kiln, calls))
        torch_ns = min(torch_ns, _batch_ns(case.torch, calls))
    return kiln_ns, torch_ns


def rows(calls: int = 20000, rounds: int = 7) -> list[tuple[str, float, float]]:
    """(label, kiln µs per call, torch µs per call) for each case, 1 thread."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        table = []
        for case in _cases():
            kiln_ns, torch_ns = _best_pair_ns(case, calls, rounds)
            table.append((case.label, kiln_ns / 1e3, torch_ns / 1e3))
        return table
    finally:
        torch.set_num_threads(threads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20000, help="calls per timed batch")
    parser.add_argument("--rounds", type=int, default=7, help="alternating batches per side")
    options = parser.parse_args()
    print(f"{'case':40} {'kiln us':>9} {'torch us':>9} {'kiln/torch':>11}")
    for label, kiln_us, torch_us in rows(options.calls, options.rounds):
        print(f"{label:40} {kiln_us:9.2f} {torch_us:9.2f} {kiln_us / torch_us:11.2f}")


if __name__ == "__main__":
    main()
