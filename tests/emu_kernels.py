"""Syntax-checking one-statement Ascend C kernels against Kiln's emulator headers, for the tests of
what the emulator refuses at compile time."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from buildtools import REPO_ROOT, run

KERNEL = """
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x) {
  (void)x;
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 4096);
  %s
}
"""


def default_compiler() -> str:
    return os.environ.get("CXX") or shutil.which("c++") or "g++"


def compile_kernel(tmp_path: Path, statement: str, compiler: str) -> tuple[int, str]:
    """Syntax-checks a kernel whose body is `statement`, warnings as errors, with the include
    directories the kiln_ascend_emu target gives its kernels. Returns the exit code and stderr
    (typographic quotes made plain, as g++ writes them under a UTF-8 locale)."""
    source = tmp_path / "kernel.cpp"
    source.write_text(KERNEL % statement)
    command = [compiler, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror"]
    command += [f"-I{REPO_ROOT}", f"-I{REPO_ROOT / 'kernels/ascend/emu'}", str(source)]
    result = run(command, check=False)
    return result.returncode, result.stderr.replace("\u2018", "'").replace("\u2019", "'")
