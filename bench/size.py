"""Stripped sizes and build times of Kiln binaries, against the previous run.

Rows: the core runtime with no kernels, the add-only library, examples/add_lib's demo, the 5 ops
of a small CNN
(add, relu, _softmax, mm, convolution: ExecuTorch's 5-op build is 569 KB), the same 5 ops with
dtype selection (float32 only, DTYPE_SELECTIVE_BUILD) and every op in functions.yaml
(ExecuTorch: 7.25 MB). Each build starts clean, so its time includes the runtime
and the kernels it compiles, on this machine's cores.

`--symbols <target>` prints where one binary's bytes go instead: sections, then symbols grouped
by the source that defines them (size_breakdown.py), in the existing build when it has the target.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from history import compare
from size_breakdown import report

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "size"
TARGETS = ("core_runtime", "add_only", "add_lib_demo", "five_ops", "five_ops_float", "all_ops")
# Where each binary lands: bench/size/'s own ones at the top, Kiln's example in Kiln's tree.
PATHS = {"add_lib_demo": Path("kiln/examples/add_lib/add_lib_demo")}


def _binary(target: str) -> Path:
    return BUILD / PATHS.get(target, Path(target))


def _stripped_size(binary: Path) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        stripped = Path(scratch) / binary.name
        subprocess.run(["strip", "-o", str(stripped), str(binary)], check=True)
        return stripped.stat().st_size


def _configure() -> None:
    shutil.rmtree(BUILD, ignore_errors=True)
    subprocess.run(
        [
            "cmake",
            "-S",
            str(ROOT / "bench" / "size"),
            "-B",
            str(BUILD),
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DKILN_SOURCE_DIR={ROOT}",
            f"-DKILN_PYTHON_EXECUTABLE={sys.executable}",
        ],
        check=True,
        capture_output=True,
    )


def _build(target: str, jobs: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        ["cmake", "--build", str(BUILD), "--target", target, "--parallel", jobs],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def measure(target: str, jobs: str) -> tuple[int, float]:
    """(stripped bytes, seconds) of `target` built from clean: the time counts everything the
    target needs."""
    _configure()
    elapsed = _build(target, jobs)
    return _stripped_size(_binary(target)), elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--symbols", metavar="TARGET", choices=TARGETS, help="break one down")
    parser.add_argument("--top", type=int, default=40, help="largest symbols listed (--symbols)")
    parser.add_argument(
        "--only", metavar="TARGET", nargs="+", choices=TARGETS, help="measure these rows only"
    )
    options = parser.parse_args()
    jobs = str(os.cpu_count() or 2)
    if options.symbols:
        if not (BUILD / "build.ninja").exists():
            _configure()
        _build(options.symbols, jobs)
        print(report(_binary(options.symbols), BUILD, options.top))
        return
    for target in options.only or TARGETS:
        size, elapsed = measure(target, jobs)
        print(compare(f"{target} stripped size", size / 1024, "KiB"))
        print(compare(f"{target} clean build time ({jobs} jobs)", elapsed, "s"))


if __name__ == "__main__":
    main()
