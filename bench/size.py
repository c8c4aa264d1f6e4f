"""Stripped sizes and build times of Kiln binaries, against the previous run and the size budget.

Rows: the core runtime with no kernels, the add-only library, examples/add_lib's demo, the 5 ops
of a small CNN (add, relu, _softmax, mm, convolution), the same 5 ops with dtype selection
(float32 only, DTYPE_SELECTIVE_BUILD) and every op in functions.yaml. Each build starts clean, so
its time includes the runtime and the kernels it compiles, with `--parallel` jobs.

Every measured row with a ceiling in bench/size_budget.py (the runtime alone, add only, the 5
ops, every op) is printed beside it; the script exits with status 1, naming the size, its budget
and what to do, when one is over.

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
from size_budget import check

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "size"
TARGETS = ("core_runtime", "add_only", "add_lib_demo", "five_ops", "five_ops_float", "all_ops")
# Where each binary lands: bench/size/'s own ones at the top, Kiln's example in Kiln's tree.
PATHS = {"add_lib_demo": Path("kiln/examples/add_lib/add_lib_demo")}


def _binary(target: str, build: Path) -> Path:
    return build / PATHS.get(target, Path(target))


def _stripped_size(binary: Path) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        stripped = Path(scratch) / binary.name
        subprocess.run(["strip", "-o", str(stripped), str(binary)], check=True)
        return stripped.stat().st_size


def _run(command: list[str], what: str) -> None:
    """Runs a build step quietly; when it fails, exits with its output's end."""
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-30:])
        raise SystemExit(f"bench/size.py: {what} failed:\n{tail}")


def _configure(build: Path) -> None:
    shutil.rmtree(build, ignore_errors=True)
    _run(
        [
            "cmake",
            "-S",
            str(ROOT / "bench" / "size"),
            "-B",
            str(build),
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DKILN_SOURCE_DIR={ROOT}",
            f"-DKILN_PYTHON_EXECUTABLE={sys.executable}",
        ],
        f"configuring {build}",
    )


def _build(target: str, jobs: str, build: Path) -> float:
    start = time.perf_counter()
    _run(
        ["cmake", "--build", str(build), "--target", target, "--parallel", jobs],
        f"building {target} in {build}",
    )
    return time.perf_counter() - start


def measure(target: str, jobs: str, build: Path = BUILD) -> tuple[int, float]:
    """(stripped bytes, seconds) of `target` built from clean in `build`: the time counts
    everything the target needs."""
    _configure(build)
    elapsed = _build(target, jobs, build)
    return _stripped_size(_binary(target, build)), elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--symbols", metavar="TARGET", choices=TARGETS, help="break one down")
    parser.add_argument("--top", type=int, default=40, help="largest symbols listed (--symbols)")
    parser.add_argument(
        "--only", metavar="TARGET", nargs="+", choices=TARGETS, help="measure these rows only"
    )
    parser.add_argument(
        "--parallel", metavar="N", type=int, default=os.cpu_count() or 2, help="build jobs"
    )
    parser.add_argument(
        "--build-dir", metavar="DIR", type=Path, default=BUILD, help=f"default {BUILD}"
    )
    options = parser.parse_args()
    jobs = str(options.parallel)
    build = options.build_dir.resolve()
    if options.symbols:
        if not (build / "build.ninja").exists():
            _configure(build)
        _build(options.symbols, jobs, build)
        print(report(_binary(options.symbols, build), build, options.top))
        return 0
    sizes_kib: dict[str, float] = {}
    for target in options.only or TARGETS:
        size, elapsed = measure(target, jobs, build)
        sizes_kib[target] = size / 1024
        print(compare(f"{target} stripped size", size / 1024, "KiB"))
        print(compare(f"{target} clean build time ({jobs} jobs)", elapsed, "s"))
    verdicts = check(sizes_kib)
    if verdicts:
        print("\nsize budget (bench/size_budget.py):")
    for verdict in verdicts:
        print(verdict.line())
    over = [verdict for verdict in verdicts if verdict.over]
    for verdict in over:
        print(verdict.advice(), file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
