"""Helpers for the codegen tests: run the generator in-process or as `python -m kiln.codegen`,
and check that generated C++ compiles."""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kiln.codegen import cli

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"

# Keeps the session's ATen schema cache out of the user's ~/.cache (no conftest.py here: a second
# `conftest` module would shadow tests/conftest.py for modules that import from it).
if "KILN_CODEGEN_CACHE_DIR" not in os.environ:
    _cache_dir = tempfile.mkdtemp(prefix="kiln-codegen-test-cache-")
    os.environ["KILN_CODEGEN_CACHE_DIR"] = _cache_dir
    atexit.register(shutil.rmtree, _cache_dir, ignore_errors=True)


@dataclass
class Run:
    returncode: int
    stderr: str
    output_dir: Path

    def file(self, name: str) -> str:
        return (self.output_dir / name).read_text()


def run_codegen(output_dir: Path, *args: str, lib_name: str = "test_lib") -> Run:
    """cli.main in this process (fast); stderr captured."""
    stderr = io.StringIO()
    argv = ["--output-dir", str(output_dir), "--lib-name", lib_name, *args]
    with contextlib.redirect_stderr(stderr):
        returncode = cli.main(argv)
    return Run(returncode, stderr.getvalue(), output_dir)


def run_codegen_process(output_dir: Path, *args: str, lib_name: str = "test_lib") -> Run:
    """`python -m kiln.codegen` in a subprocess, exactly as the build runs it: with the source
    tree's python/ on PYTHONPATH (KILN_CODEGEN_PYTHONPATH)."""
    pythonpath = str(REPO / "python") + os.pathsep + os.environ.get("PYTHONPATH", "")
    env = dict(os.environ, PYTHONPATH=pythonpath)
    argv = ["--output-dir", str(output_dir), "--lib-name", lib_name, *args]
    result = subprocess.run(
        [sys.executable, "-m", "kiln.codegen", *argv],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.stdout == "", "the generator must keep stdout clean"
    return Run(result.returncode, result.stderr, output_dir)


def write(directory: Path, name: str, text: str) -> str:
    path = directory / name
    path.write_text(text)
    return str(path)


CXX = shutil.which("g++") or shutil.which("c++")
FLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{REPO}"]

# Includes every generated header from a .cpp, so `#pragma once` is not in a main file.
HEADER_CHECK = """\
#include "Functions.h"
#include "NativeFunctions.h"
#include "RegisterKernels.h"
#include "selected_op_variants.h"
"""


def compile_syntax(out_dir: Path, *sources: str, flags: tuple[str, ...] = ()) -> None:
    """``sources`` and every generated header in ``out_dir`` compile (syntax only)."""
    assert CXX is not None
    check = out_dir / "check_headers.cpp"
    check.write_text(HEADER_CHECK)
    for source in (*sources, str(check)):
        result = subprocess.run(
            [CXX, *FLAGS, *flags, f"-I{out_dir}", "-fsyntax-only", source],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, f"{source}:\n{result.stderr[-4000:]}"
