"""The repository's own style gates: clang-format for C++, ruff and mypy for Python."""

from __future__ import annotations

import subprocess
import sys

from buildtools import REPO_ROOT, run


def _tracked(*patterns: str) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", *patterns],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in listed.stdout.splitlines() if line]


def test_cpp_is_clang_formatted() -> None:
    files = _tracked("*.cpp", "*.h")
    assert files
    run(["clang-format", "--dry-run", "--Werror", *files], cwd=REPO_ROOT)


def test_python_is_ruff_clean() -> None:
    python_dirs = ["codegen", "python", "bench", "tests", "tools"]
    run([sys.executable, "-m", "ruff", "format", "--check", *python_dirs], cwd=REPO_ROOT)
    run([sys.executable, "-m", "ruff", "check", *python_dirs], cwd=REPO_ROOT)


def test_python_is_mypy_clean() -> None:
    run([sys.executable, "-m", "mypy"], cwd=REPO_ROOT)
