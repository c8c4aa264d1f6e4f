"""Rules the emulator learned from CANN 8.1.RC1's headers: a kernel using a form CANN rejects must
fail to compile against the emulator too, with a message naming the rule, and the allowed form
must compile. Each rule is listed, with its source header, in kernels/ascend/emu/README.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from emu_kernels import compile_kernel, default_compiler

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
        "Compare: the mask dst is a LocalTensor<uint8_t> or <int8_t> on 910B and 310P",
        "auto m = buf.Get<uint8_t>(); auto s = buf.Get<int8_t>()[32];"
        " auto f = buf.Get<float>()[64];"
        " Compare(m, f, f, CMPMODE::EQ, 64); Compare(s, f, f, CMPMODE::EQ, 64);",
    ),
    "local_tensor_get_length_is_deprecated": (
        "auto f = buf.Get<float>(); (void)f.GetLength();",
        "LocalTensor::GetLength is deprecated in CANN 8.1.RC1; use GetSize() * sizeof(T)",
        "auto f = buf.Get<float>(); (void)(f.GetSize() * sizeof(float));",
    ),
    "compare_scalar_mask_is_uint8": (
        "auto m = buf.Get<uint32_t>(); auto f = buf.Get<float>()[64]; "
        "CompareScalar(m, f, 0.0f, CMPMODE::LT, 64);",
        "CompareScalar: the mask dst is a LocalTensor<uint8_t> or <int8_t> on 910B and 310P",
        "auto m = buf.Get<uint8_t>(); auto f = buf.Get<float>()[64]; "
        "CompareScalar(m, f, 0.0f, CMPMODE::LT, 64);",
    ),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_forbidden_form_fails_with_the_rule(tmp_path: Path, rule: str) -> None:
    statement, message, _ = RULES[rule]
    returncode, stderr = compile_kernel(tmp_path, statement, default_compiler())
    assert returncode != 0
    assert message in stderr, stderr[-3000:]


@pytest.mark.parametrize("rule", sorted(RULES))
def test_allowed_form_compiles(tmp_path: Path, rule: str) -> None:
    _, _, statement = RULES[rule]
    returncode, stderr = compile_kernel(tmp_path, statement, default_compiler())
    assert returncode == 0, stderr[-3000:]
