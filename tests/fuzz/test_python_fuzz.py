"""Kiln's Python bindings fuzzed under AddressSanitizer and UndefinedBehaviorSanitizer.

tests/fuzz builds kiln_python_fuzz: kiln._C's binding sources with the runtime, the executor and
the fuzz operator library, all sanitized, in the same tree as the program fuzz driver. The
harness (python/harness.py) imports it as kiln._C in a worker with libasan preloaded and throws
random calls at kiln.call_op, kiln.load and Program.run (python/op_cases.py, program_cases.py):
any sanitizer report, crash, hang, wrong result or exception other than KilnError, TypeError,
ValueError or IndexError fails the run. KILN_PY_FUZZ_SECONDS (default 45) and KILN_PY_FUZZ_SEED
(default 1) set it; docs/programs.md (Verification) shows longer runs by hand.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from buildtools import run

FUZZ_DIR = Path(__file__).resolve().parent
HARNESS = FUZZ_DIR / "python" / "harness.py"

sys.path.insert(0, str(FUZZ_DIR / "python"))
import sanitized  # noqa: E402


def _harness(module: Path, seeds: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(HARNESS), "--module-dir", str(module), "--corpus", str(seeds)]
    return subprocess.run([*command, *options], capture_output=True, text=True)


def _report(result: subprocess.CompletedProcess[str]) -> str:
    findings = "\n".join(re.findall(r"^FINDING.*$", result.stderr, re.MULTILINE)[:20])
    return (
        f"--- stdout ---\n{result.stdout[-4000:]}\n--- findings ---\n{findings}\n"
        f"--- stderr ---\n{result.stderr[-6000:]}"
    )


def _inputs(surface: str, result: subprocess.CompletedProcess[str]) -> dict[str, int]:
    """The outcome counts of one surface from the harness's summary line."""
    found = re.search(rf"^{surface}: (\d+) inputs \((.*)\)$", result.stdout, re.MULTILINE)
    assert found is not None, _report(result)
    counts = {"inputs": int(found[1])}
    for item in filter(None, found[2].split(", ")):
        name, number = item.rsplit(" ", 1)
        counts[name] = int(number)
    return counts


def test_the_module_is_sanitized(sanitized_module: Path) -> None:
    extension = sanitized.module_path(sanitized_module)
    libraries = run(["ldd", str(extension)]).stdout
    assert "libasan" in libraries and "libubsan" in libraries, libraries
    manifest = sanitized_module / "kiln_all_ops.manifest.json"
    assert "aten::add.out" in manifest.read_text()


def test_the_harness_runs_the_sanitized_module(sanitized_module: Path, corpus: Path) -> None:
    """kiln._C in the worker is the sanitized file, with the fuzz library's operators only."""
    script = (
        f"import sys; sys.path.insert(0, {str(FUZZ_DIR / 'python')!r}); import sanitized; "
        f"from pathlib import Path; sanitized.install(Path({str(sanitized_module)!r})); "
        "import kiln; from kiln import _C; print(_C.__file__); "
        "print(len(kiln.registered_operators()))"
    )
    env = sanitized.sanitized_environment(sanitized_module)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    path, count = result.stdout.split()
    assert Path(path) == sanitized.module_path(sanitized_module)
    assert 0 < int(count) < 100  # the fuzz operator subset, not the ~600 of the installed one


def test_fuzzing_the_bindings_finds_nothing(
    sanitized_module: Path, corpus: Path, driver_mutants: Path
) -> None:
    seconds = os.environ.get("KILN_PY_FUZZ_SECONDS", "45")
    seed = os.environ.get("KILN_PY_FUZZ_SEED", "1")
    options = ["--seconds", seconds, "--seed", seed, "--mutants", str(driver_mutants)]
    result = _harness(sanitized_module, corpus, *options)
    assert result.returncode == 0, _report(result)
    for kind in ("crash", "hang", "wrong", "unexpected"):
        assert f"\n{kind}: 0\n" in result.stdout, _report(result)
    # Reports (not warnings: a huge allocation refused with allocator_may_return_null is one).
    assert "ERROR: AddressSanitizer" not in result.stderr, _report(result)
    assert "runtime error" not in result.stderr, _report(result)
    assert f"module: {sanitized.module_path(sanitized_module)}" in result.stdout
    # Every surface got many inputs, and a share of them reached the kernels and executor.
    calls, loads, runs = (_inputs(s, result) for s in ("call_op", "load", "run"))
    assert calls["inputs"] > 300 and calls.get("computed+compared", 0) > 20, _report(result)
    assert loads["inputs"] > 100 and loads.get("loaded+ran", 0) > 0, _report(result)
    assert runs["inputs"] > 100 and runs.get("computed+compared", 0) > 20, _report(result)


def test_the_harness_catches_injected_faults(sanitized_module: Path, corpus: Path) -> None:
    """A hang, a wrong result and a heap use-after-free in Kiln's kernel (a program input bound
    to freed memory) are each found, and the run goes on after each."""
    options = ["--iterations", "4", "--timeout", "3", "--inject", "hang@0,wrong@1,uaf@2"]
    result = _harness(sanitized_module, corpus, *options)
    assert result.returncode == 1, _report(result)
    for kind in ("crash", "hang", "wrong"):
        assert f"\n{kind}: 1\n" in result.stdout, _report(result)
    assert "inputs: 4\n" in result.stdout, _report(result)
    assert "ERROR: AddressSanitizer: heap-use-after-free" in result.stderr, _report(result)
    assert "replay with --seed 1 --first 2 --iterations 1" in result.stdout, _report(result)


def test_the_bindings_regressions(sanitized_module: Path, corpus: Path) -> None:
    """The harness's past findings, replayed (python/regressions.py)."""
    env = sanitized.sanitized_environment(sanitized_module)
    script = FUZZ_DIR / "python" / "regressions.py"
    result = subprocess.run(
        [sys.executable, str(script), str(sanitized_module), str(corpus)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 0 and "regressions: ok" in result.stdout, result.stderr[-6000:]
    assert "runtime error" not in result.stderr and "ERROR: AddressSanitizer" not in result.stderr
