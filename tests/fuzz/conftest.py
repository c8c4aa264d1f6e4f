"""The fuzz tests' builds: the sanitized program fuzz driver, runner and Python module
(tests/fuzz/CMakeLists.txt) in one tree, the seed corpus and the driver's mutants."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from corpus import export_corpus

from buildtools import BUILD_ROOT, cmake_build, run

FUZZ_DIR = Path(__file__).resolve().parent
BUILD = BUILD_ROOT / "pytest-fuzz"


def build(*targets: str) -> None:
    """Configures the fuzz tree and builds `targets` (incremental across runs)."""
    BUILD_ROOT.mkdir(exist_ok=True)
    with open(BUILD_ROOT / "pytest-fuzz.lock", "w") as lock:  # one session builds at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        run(
            [
                "cmake",
                "-S",
                str(FUZZ_DIR),
                "-B",
                str(BUILD),
                "-G",
                "Ninja",
                f"-DKILN_PYTHON_EXECUTABLE={sys.executable}",
            ]
        )
        cmake_build(BUILD, *targets)


@pytest.fixture(scope="session")
def fuzz_driver() -> Path:
    """program_fuzz_driver: the program fuzz target under a standalone driver."""
    build("program_fuzz_driver")
    return BUILD / "program_fuzz_driver"


@pytest.fixture(scope="session")
def fuzz_runner() -> Path:
    """fuzz_runner: kiln_runner over the fuzz library's kernels, sanitized."""
    build("fuzz_runner")
    return BUILD / "fuzz_runner"


@pytest.fixture(scope="session")
def sanitized_module() -> Path:
    """The directory of kiln._C built sanitized over the fuzz operators (the tree's
    kiln_python_fuzz); the build's seconds are written to python-fuzz-build-seconds.txt there."""
    started = time.monotonic()
    build("kiln_python_fuzz")
    (BUILD / "python-fuzz-build-seconds.txt").write_text(f"{time.monotonic() - started:.1f}\n")
    return BUILD / "python_module"


@pytest.fixture(scope="session")
def corpus() -> Path:
    directory = BUILD / "corpus"
    export_corpus(directory)
    return directory


@pytest.fixture(scope="session")
def driver_mutants(
    fuzz_driver: Path, corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """Structure-aware mutants of the corpus and the driver's own seeds, from the driver."""
    out = tmp_path_factory.mktemp("mutants")
    seed = os.environ.get("KILN_FUZZ_SEED", "1")
    args = ["--mutate-to", str(out), "--count", "400", "--seed", seed, str(corpus)]
    result = subprocess.run([str(fuzz_driver), *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return out
