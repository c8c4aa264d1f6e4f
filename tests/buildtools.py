"""Helpers for tests that drive CMake builds and native executables."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

REPO_ROOT = Path(__file__).resolve().parent.parent
# Where the session-scoped native builds go; KILN_TEST_BUILD_ROOT points a second checkout's or a
# parallel run's tests at builds of their own.
BUILD_ROOT = Path(os.environ.get("KILN_TEST_BUILD_ROOT", REPO_ROOT / "build"))


def run(
    cmd: list[str], cwd: Path | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """Runs a command, showing its output in the assertion message when it fails."""
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(
            f"command failed ({result.returncode}): {' '.join(cmd)}\n"
            f"--- stdout ---\n{result.stdout[-6000:]}\n--- stderr ---\n{result.stderr[-6000:]}"
        )
    return result


def cmake_configure(source: Path, build: Path, *defines: str) -> subprocess.CompletedProcess[str]:
    return run(
        [
            "cmake",
            "-S",
            str(source),
            "-B",
            str(build),
            "-G",
            "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DKILN_PYTHON_EXECUTABLE={sys.executable}",
            *defines,
        ]
    )


def cmake_build(build: Path, *targets: str) -> None:
    cmd = ["cmake", "--build", str(build), "--parallel", str(os.cpu_count() or 2)]
    for target in targets:
        cmd += ["--target", target]
    run(cmd)


def load_script(path: Path, name: str) -> ModuleType:
    """Imports a script that is not in a package (tools/, bench/) as module `name`."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module
