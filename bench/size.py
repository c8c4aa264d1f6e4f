"""Stripped sizes and build times of the example binaries, against the previous run."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from history import compare

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "size"


def _stripped_size(binary: Path) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        stripped = Path(scratch) / binary.name
        subprocess.run(["strip", "-o", str(stripped), str(binary)], check=True)
        return stripped.stat().st_size


def main() -> None:
    shutil.rmtree(BUILD, ignore_errors=True)
    subprocess.run(
        [
            "cmake",
            "-S",
            str(ROOT),
            "-B",
            str(BUILD),
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DKILN_PYTHON_EXECUTABLE={sys.executable}",
        ],
        check=True,
        capture_output=True,
    )
    start = time.perf_counter()
    subprocess.run(
        ["cmake", "--build", str(BUILD), "--target", "add_lib_demo"],
        check=True,
        capture_output=True,
    )
    print(compare("add_lib_demo build time (2 cores)", time.perf_counter() - start, "s"))
    size = _stripped_size(BUILD / "examples/add_lib/add_lib_demo")
    print(compare("add_lib_demo stripped size", size / 1024, "KiB"))


if __name__ == "__main__":
    main()
