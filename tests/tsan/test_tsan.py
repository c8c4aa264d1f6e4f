"""Kiln from several threads at once, under ThreadSanitizer (issue #32).

tests/tsan builds concurrency_test.cpp with Kiln's runtime, executor, thread pool and the test
programs' kernels compiled with -fsanitize=thread, and runs it on programs that tsan_programs.py
exports: one Program with a Method per thread (loads that fold constants overlapping too),
separate Programs per thread, one pool shared by concurrent Methods (and their loads' folding)
and a pool per thread, a cancel flag set from another thread, last_error() per thread, registry
lookups and fallback records while Methods run, and the random generators. Every run's outputs
are compared bit for bit with a single-threaded run, and any ThreadSanitizer report fails the
test. Nothing is suppressed. The self-tests show that the build is instrumented
and that a real race, in plain threads and among the tasks of a pool batch, is reported.
"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tsan_programs import export_programs

from buildtools import BUILD_ROOT, cmake_build, run

TSAN_DIR = Path(__file__).resolve().parent
BUILD = BUILD_ROOT / "pytest-tsan"
BINARY = "kiln_tsan_tests"


@pytest.fixture(scope="session")
def tsan_binary() -> Path:
    """kiln_tsan_tests, built in its own tree (incremental across runs)."""
    BUILD_ROOT.mkdir(exist_ok=True)
    with open(BUILD_ROOT / "pytest-tsan.lock", "w") as lock:  # one session builds at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        run(
            [
                "cmake",
                "-S",
                str(TSAN_DIR),
                "-B",
                str(BUILD),
                "-G",
                "Ninja",
                f"-DKILN_PYTHON_EXECUTABLE={sys.executable}",
            ]
        )
        cmake_build(BUILD, BINARY)
    return BUILD / BINARY


@pytest.fixture(scope="session")
def program_args() -> list[str]:
    """NAME=PATH arguments for the binary, one per exported program."""
    BUILD_ROOT.mkdir(exist_ok=True)
    with open(BUILD_ROOT / "pytest-tsan.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        programs = export_programs(BUILD / "programs")
    return [f"{name}={path}" for name, path in programs.items()]


def _run(binary: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # Any report makes the process exit with 66 at the end; a caller's own TSAN_OPTIONS (a
    # suppression file, say) must not change what this test sees.
    env = dict(os.environ, TSAN_OPTIONS="exitcode=66 halt_on_error=0")
    return subprocess.run(
        [str(binary), *args], capture_output=True, text=True, env=env, timeout=600
    )


def _report(result: subprocess.CompletedProcess[str]) -> str:
    return f"--- stdout ---\n{result.stdout[-6000:]}\n--- stderr ---\n{result.stderr[-12000:]}"


def test_kiln_is_compiled_with_thread_sanitizer(tsan_binary: Path) -> None:
    assert "libtsan" in run(["ldd", str(tsan_binary)]).stdout
    # Kiln's own code, not only the test's: every object of the runtime, executor and thread pool
    # libraries and of the operator library calls into ThreadSanitizer.
    archives = sorted((BUILD / "kiln" / "runtime").glob("libkiln_*.a"))
    kernels = sorted((BUILD / "CMakeFiles" / "tsan_ops.dir").rglob("*.o"))
    assert {a.name for a in archives} >= {
        "libkiln_runtime.a",
        "libkiln_executor.a",
        "libkiln_threads.a",
    }
    assert any(k.name.startswith("op_addmm") for k in kernels), kernels
    for library in [*archives, *kernels]:
        # nm -A names the object of each symbol: "lib.a:member.o: U sym", "file.o: U sym".
        if library.suffix == ".a":
            members = set(run(["ar", "t", str(library)]).stdout.split())
        else:
            members = {str(library)}
        symbols = run(["nm", "-A", "-u", str(library)]).stdout.splitlines()
        instrumented = {line.split(":")[-2] for line in symbols if "__tsan_" in line}
        assert members and members == instrumented, f"{library}: {members - instrumented}"


def test_concurrent_use_has_no_race_and_matches_one_thread(
    tsan_binary: Path, program_args: list[str]
) -> None:
    result = _run(tsan_binary, *program_args)
    assert result.returncode == 0, _report(result)
    assert "ThreadSanitizer" not in result.stderr, _report(result)
    started = len(re.findall(r"^\[ RUN      \] ", result.stdout, re.MULTILINE))
    passed = re.search(r"^\[  PASSED  \] (\d+) tests?\.$", result.stdout, re.MULTILINE)
    assert passed is not None and int(passed[1]) == started >= 10, _report(result)


@pytest.mark.parametrize("how", ["threads", "pool"])
def test_a_real_race_is_reported(tsan_binary: Path, how: str) -> None:
    """The same binary, running a data race on purpose: two threads, or the two tasks of one
    PthreadPool batch, increment one int. The report shows that this build catches races, also
    among a pool's tasks (which PthreadPool's ThreadSanitizer annotations must not order)."""
    result = _run(tsan_binary, f"--deliberate-race={how}")
    assert f"deliberate race ({how}) ran" in result.stdout, _report(result)
    assert result.returncode == 66, _report(result)
    assert "WARNING: ThreadSanitizer: data race" in result.stderr, _report(result)
    assert "all_arrived_then_increment" in result.stderr, _report(result)
