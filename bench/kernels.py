"""Kiln portable kernels against ATen, side by side in one process on identical inputs, 1 thread.

Kiln's time is the boxed kernel call measured natively (kiln._C.call_boxed with repeat); ATen's
is the same out-variant op (torch.ops.aten.<op>.<overload>) timed by torch.utils.benchmark; both
on the same tensors. Prints a table of
Kiln/ATen ratios (lower is better; 1.0 = as fast as ATen).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

import torch
import torch.utils.benchmark as benchmark

from kiln import _C
from kiln._call import bind_call


@dataclass(frozen=True)
class Case:
    label: str
    op: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]

    def aten(self, out: torch.Tensor) -> Any:
        """Runs ATen's kernel for the same op, writing into `out`."""
        base, overload = self.op.removeprefix("aten::").split(".")
        packet = getattr(torch.ops.aten, base)
        return getattr(packet, overload)(*self.args, **self.kwargs, out=out)


def _cases() -> list[Case]:
    torch.manual_seed(0)
    a = torch.randn(1 << 20)
    b = torch.randn(1 << 20)
    rows = torch.randn(1024, 1024)
    row = torch.randn(1024)
    x = torch.randn(256, 1024)
    m1 = torch.randn(256, 256)
    m2 = torch.randn(256, 256)
    return [
        Case("add 1M float32", "aten::add.out", (a, b), {}),
        Case("row-broadcast add 1024x1024", "aten::add.out", (rows, row), {}),
        Case("mul 1M float32", "aten::mul.out", (a, b), {}),
        Case("div 1M float32", "aten::div.out", (a, b), {}),
        Case("relu 1M float32", "aten::relu.out", (a,), {}),
        Case("softmax 256x1024", "aten::_softmax.out", (x, -1, False), {}),
        Case("sum dim=-1 256x1024", "aten::sum.IntList_out", (x, [-1]), {}),
        Case("mm 256", "aten::mm.out", (m1, m2), {}),
    ]


def _aten_ns(case: Case, out: torch.Tensor, min_time: float) -> float:
    timer = benchmark.Timer(stmt="fn(out)", globals={"fn": case.aten, "out": out}, num_threads=1)
    return timer.blocked_autorange(min_run_time=min_time).median * 1e9


def _kiln_ns(case: Case, out: torch.Tensor, repeat: int) -> float:
    call = bind_call(case.op, case.args, out, case.kwargs)
    _C.call_boxed(call.op.name, ["portable"], call.tagged, repeat=max(1, repeat // 10))
    best = float("inf")
    for _ in range(5):
        outcome = _C.call_boxed(call.op.name, ["portable"], call.tagged, repeat=repeat)
        if outcome.error != "Ok":
            raise SystemExit(f"{case.label}: {outcome.message}")
        best = min(best, outcome.ns_per_call)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds per ATen case")
    options = parser.parse_args()
    torch.set_num_threads(1)
    print(f"{'case':32} {'kiln us':>10} {'aten us':>10} {'kiln/aten':>10}")
    for case in _cases():
        reference = case.aten(torch.empty(0))
        out = torch.empty_like(reference)
        aten = _aten_ns(case, out, options.min_time)
        repeat = max(3, int(options.min_time * 1e9 / aten / 5))
        kiln = _kiln_ns(case, out, repeat)
        torch.testing.assert_close(out, reference, rtol=1e-4, atol=1e-4)
        print(f"{case.label:32} {kiln / 1e3:10.1f} {aten / 1e3:10.1f} {kiln / aten:9.2f}x")


if __name__ == "__main__":
    main()
