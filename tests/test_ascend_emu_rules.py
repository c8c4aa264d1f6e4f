"""Rules the emulator learned from CANN 8.1.RC1's headers: a kernel using a form CANN rejects must
fail to compile against the emulator too, with a message naming the rule, and the allowed form
must compile. Each rule is listed, with its source header, in kernels/ascend/emu/README.md."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from buildtools import REPO_ROOT, run

KERNEL = """
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x) {
  (void)x;
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 4096);
  %s
}
"""


def _compile(tmp_path: Path, statement: str) -> tuple[int, str]:
    """Syntax-checks a one-statement kernel against the emulator's headers, with the include
    directories the kiln_ascend_emu target gives its kernels."""
    source = tmp_path / "kernel.cpp"
    source.write_text(KERNEL % statement)
    compiler = os.environ.get("CXX") or shutil.which("c++") or "g++"
    command = [
        compiler,
        "-std=c++17",
        "-fsyntax-only",
        "-Wall",
        "-Wextra",
        "-Werror",
        f"-I{REPO_ROOT}",
        f"-I{REPO_ROOT / 'kernels/ascend/emu'}",
        str(source),
    ]
    result = run(command, check=False)
    # g++ quotes names with typographic quotes under a UTF-8 locale.
    return result.returncode, result.stderr.replace("\u2018", "'").replace("\u2019", "'")


# (forbidden statement, message the emulator gives, allowed statement). CANN's header for each
# rule is named in kernels/ascend/emu/README.md.
RULES = {
    "get_tpipe_ptr_is_global": (
        "(void)AscendC::GetTPipePtr();",
        "'GetTPipePtr' is not a member of 'AscendC'",
        "(void)GetTPipePtr();",
    ),
    "abs_half_float_only": (
        "auto t = buf.Get<int32_t>(); Abs(t, t, 8);",
        "Abs takes half or float operands on 910B and 310P",
        "auto h = buf.Get<half>(); auto f = buf.Get<float>()[64]; Abs(h, h, 16); Abs(f, f, 8);",
    ),
    "compare_mask_is_uint8": (
        "auto m = buf.Get<uint16_t>(); auto f = buf.Get<float>()[64]; "
        "Compare(m, f, f, CMPMODE::EQ, 64);",
        "Compare: the mask dst is a LocalTensor<uint8_t> on 910B and 310P",
        "auto m = buf.Get<uint8_t>(); auto f = buf.Get<float>()[64]; "
        "Compare(m, f, f, CMPMODE::EQ, 64);",
    ),
    "compare_scalar_mask_is_uint8": (
        "auto m = buf.Get<uint32_t>(); auto f = buf.Get<float>()[64]; "
        "CompareScalar(m, f, 0.0f, CMPMODE::LT, 64);",
        "CompareScalar: the mask dst is a LocalTensor<uint8_t> on 910B and 310P",
        "auto m = buf.Get<uint8_t>(); auto f = buf.Get<float>()[64]; "
        "CompareScalar(m, f, 0.0f, CMPMODE::LT, 64);",
    ),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_forbidden_form_fails_with_the_rule(tmp_path: Path, rule: str) -> None:
    statement, message, _ = RULES[rule]
    returncode, stderr = _compile(tmp_path, statement)
    assert returncode != 0
    assert message in stderr, stderr[-3000:]


@pytest.mark.parametrize("rule", sorted(RULES))
def test_allowed_form_compiles(tmp_path: Path, rule: str) -> None:
    _, _, statement = RULES[rule]
    returncode, stderr = _compile(tmp_path, statement)
    assert returncode == 0, stderr[-3000:]
