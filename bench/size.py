"""Stripped sizes and build times of Kiln binaries, against the previous run.

Rows: the core runtime with no kernels, the add-only library, the 5 ops of a small CNN
(add, relu, _softmax, mm, convolution: ExecuTorch's 5-op build is 569 KB), the same 5 ops with
dtype selection (float32 only, DTYPE_SELECTIVE_BUILD) and every op in functions.yaml
(ExecuTorch: 7.25 MB). Each build starts clean, so its time includes the runtime
and the kernels it compiles, on this machine's cores.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from history import compare

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "size"
TARGETS = ("core_runtime", "add_only", "five_ops", "five_ops_float", "all_ops")


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


def main() -> None:
    jobs = str(os.cpu_count() or 2)
    for target in TARGETS:
        _configure()  # clean, so each time counts everything the target needs
        start = time.perf_counter()
        subprocess.run(
            ["cmake", "--build", str(BUILD), "--target", target, "--parallel", jobs],
            check=True,
            capture_output=True,
        )
        elapsed = time.perf_counter() - start
        size = _stripped_size(BUILD / target)
        print(compare(f"{target} stripped size", size / 1024, "KiB"))
        print(compare(f"{target} clean build time ({jobs} jobs)", elapsed, "s"))


if __name__ == "__main__":
    main()
