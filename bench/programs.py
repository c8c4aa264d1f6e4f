"""Programs end to end, 1 thread, side by side in one process on identical inputs: Kiln's executor
against eager PyTorch and against ExecuTorch 1.5.1's runtime on the same .pte, plus the
executor's own cost per instruction.

Columns: `kiln` is Method::execute timed natively (no Python per run); `kiln py` and `et py` are
one run through each runtime's Python API (both pay their binding's conversions); `eager` is the
module under torch.no_grad(). Ratios are Kiln's native time over the others (lower is better).
Per-instruction overhead: a program of N one-element adds, executed, minus N boxed add calls with
a held kernel pointer (the same unboxing and kernel), divided by N.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "program"))

import kiln  # noqa: E402
from kiln import _C  # noqa: E402
from kiln._call import bind_call  # noqa: E402

ADD_CHAIN_LENGTH = 256


def _median_ns(run: Callable[[], Any], min_time: float) -> float:
    run()
    samples = []
    deadline = time.perf_counter() + min_time
    while time.perf_counter() < deadline or len(samples) < 5:
        start = time.perf_counter_ns()
        run()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples)


def _executorch() -> tuple[Callable[..., bytes], Any]:
    from executorch_export import ExecuTorchMethod, pte_bytes

    return pte_bytes, ExecuTorchMethod


def model_rows(min_time: float) -> None:
    from models import ZOO

    pte_bytes, ExecuTorchMethod = _executorch()
    exporters = {"et": pte_bytes, "kiln": lambda m, x: kiln.export(m, x)}
    print(
        f"{'model (exporter)':28} {'load us':>8} {'kiln us':>9} {'kiln py':>9} {'et py':>9} "
        f"{'eager':>9} {'/eager':>7} {'/et py':>7}"
    )
    for model in ZOO:
        for exporter, export in exporters.items():
            module, inputs = model.create()
            pte = export(module, inputs)
            load = _median_ns(lambda data=pte: kiln.load(data), min_time / 3)
            program = kiln.load(pte)
            et = ExecuTorchMethod(pte)
            kiln_native = program.time_execute(*inputs, repeat=max(10, int(min_time * 2000)))
            kiln_py = _median_ns(lambda p=program, x=inputs: p.run(*x), min_time)
            et_py = _median_ns(lambda e=et, x=inputs: e.run(*x), min_time)
            with torch.no_grad():
                eager = _median_ns(lambda m=module, x=inputs: m(*x), min_time)
            label = f"{model.name} ({exporter})"
            print(
                f"{label:28} {load / 1e3:8.1f} {kiln_native / 1e3:9.1f} {kiln_py / 1e3:9.1f} "
                f"{et_py / 1e3:9.1f} {eager / 1e3:9.1f} {kiln_native / eager:6.2f}x "
                f"{kiln_native / et_py:6.2f}x"
            )


class AddChain(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        for _ in range(ADD_CHAIN_LENGTH):
            x = x + y
        return x


def executor_overhead() -> None:
    pte_bytes, _ = _executorch()
    x, y = torch.ones(1), torch.ones(1)
    program = kiln.load(pte_bytes(AddChain(), (x, y)))
    calls = sum(op == "aten::add.out" for op in program.operators)
    assert calls == 1 and len(program.run(x, y)) == 1
    per_run = min(program.time_execute(x, y, repeat=2000) for _ in range(5))
    out = torch.empty(1)
    call = bind_call("aten::add.out", (x, y), out, {})
    boxed = min(
        _C.call_boxed(call.op.name, ["portable"], call.tagged, repeat=200000).ns_per_call
        for _ in range(5)
    )
    per_instruction = per_run / ADD_CHAIN_LENGTH
    print(
        f"\nexecutor: {ADD_CHAIN_LENGTH} one-element adds take {per_run / 1e3:.1f} us: "
        f"{per_instruction:.1f} ns per instruction, of which the boxed kernel call is "
        f"{boxed:.1f} ns and the executor {per_instruction - boxed:.1f} ns"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--min-time", type=float, default=0.3, help="seconds per measurement")
    options = parser.parse_args()
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    model_rows(options.min_time)
    executor_overhead()


if __name__ == "__main__":
    main()
