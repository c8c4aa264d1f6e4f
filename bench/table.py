"""The performance table in one command: every row of the performance issue, measured side by side
in one process.

Rows: kiln.call_op per call against the same torch call (python_call.py); kernels against ATen
at 1 thread (kernels.py, the cases named below); the same at 2 threads, Kiln's pool and ATen's at
the same count (wall time); stripped binary sizes and the add-only clean build (size.py, each
built from clean, which takes minutes: --skip-sizes leaves them out). Ratios are Kiln over the
other side: lower is better, 1.0 = as fast.
"""

from __future__ import annotations

import argparse
import os

import python_call
import size
from cases import Case, all_cases

from kernels import measure, set_threads

# bench/cases labels of the kernel rows, at 1 thread.
ONE_THREAD = (
    "add 1M f16",
    "add 1M bf16",
    "_to_copy f32->f16 1M",
    "gelu 1M float32",
    "pow 1M float32 ** tensor",
    "sin 1M float32",
    "cos 1M float32",
    "row-broadcast add 1024x1024",
    "softmax f16 256x1024",
    "layer_norm f16 256x1024",
    "mm f16 256x256",
)
# And at 2 threads.
TWO_THREADS = (
    "add 1M float32",
    "softmax 256x1024",
    "mm 256x256",
    "conv2d 16->32 3x3 1x16x32x32",
)
# bench/size.py rows whose stripped size the table shows; the add-only row also gives its time.
SIZE_ROWS = ("add_lib_demo", "add_only", "five_ops", "all_ops")


def _cases(labels: tuple[str, ...]) -> list[Case]:
    by_label = {case.label: case for case in all_cases()}
    missing = [label for label in labels if label not in by_label]
    if missing:
        raise SystemExit(f"bench/table.py: no bench/cases case labelled {', '.join(missing)}")
    return [by_label[label] for label in labels]


def _row(what: str, kiln: str, other: str, ratio: str) -> None:
    print(f"{what:44} {kiln:>12} {other:>12} {ratio:>9}")


def _kernel_rows(labels: tuple[str, ...], threads: int, min_time: float) -> None:
    set_threads(threads)
    for case in _cases(labels):
        # One thread: its CPU time, so that other work on the machine does not skew the ratio.
        kiln_ns, aten_ns = measure(case, threads, min_time, cpu_time=threads == 1)
        ratio = kiln_ns / aten_ns
        _row(case.label, f"{kiln_ns / 1e3:.1f} us", f"{aten_ns / 1e3:.1f} us", f"{ratio:.2f}x")
    set_threads(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds per kernel case")
    parser.add_argument("--skip-sizes", action="store_true", help="leave out the size rows")
    options = parser.parse_args()

    _row("Python call path, 1 thread", "kiln.call_op", "torch", "ratio")
    for label, kiln_us, torch_us in python_call.rows():
        _row(label, f"{kiln_us:.2f} us", f"{torch_us:.2f} us", f"{kiln_us / torch_us:.2f}x")
    print()
    _row("Kernels, 1 thread", "kiln", "aten", "ratio")
    _kernel_rows(ONE_THREAD, 1, options.min_time)
    print()
    _row("Kernels, 2 threads", "kiln", "aten", "ratio")
    _kernel_rows(TWO_THREADS, 2, options.min_time)
    if options.skip_sizes:
        return
    print()
    _row("Stripped size, built from clean", "size", "build time", "")
    jobs = str(os.cpu_count() or 2)
    for target in SIZE_ROWS:
        stripped, seconds = size.measure(target, jobs)
        _row(target, f"{stripped / 1024:.1f} KiB", f"{seconds:.1f} s", "")


if __name__ == "__main__":
    main()
