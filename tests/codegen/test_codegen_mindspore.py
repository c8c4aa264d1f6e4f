"""--mindspore-aot: one MindSpore AOT entry point per out-variant operator, and a lookup table."""

from __future__ import annotations

from pathlib import Path

import pytest
from codegen_testing import CXX, REPO, compile_syntax, run_codegen

OPS = "aten::add.out,aten::cat.out,kiln::rms_norm.out,kiln::rotary_embedding.out," + (
    "kiln::gelu_and_mul.out,kiln::reshape_and_cache,kiln::advance_step_flashattn,"
    "kiln::paged_attention.out,aten::permute_copy.out,aten::copy_"
)


def _generate(tmp_path: Path, *extra: str) -> str:
    run = run_codegen(
        tmp_path,
        "--functions-yaml",
        str(REPO / "functions.yaml"),
        "--custom-ops-yaml",
        str(REPO / "custom_ops.yaml"),
        "--root-ops",
        OPS,
        "--mindspore-aot",
        *extra,
    )
    assert run.returncode == 0, run.stderr
    return run.file("MindSporeAot.cpp")


def test_entry_points_for_operators_that_write_tensors(tmp_path: Path) -> None:
    text = _generate(tmp_path)
    for entry in (
        "kiln_ms_aten_add_out",
        "kiln_ms_kiln_rms_norm_out",
        "kiln_ms_kiln_rotary_embedding_out",
        "kiln_ms_kiln_gelu_and_mul_out",
    ):
        assert f"KILN_AOT_EXPORT int {entry}(" in text
        assert f'"{entry}"}},' in text  # the lookup table's row
    # Argument kinds follow the schema: scalars and strings as tensors, the outs last.
    assert "kAot_kiln_rms_norm_out[] = {\n    AotArg::Tensor,\n    AotArg::Tensor,\n" in text
    assert "AotArg::Double," in text and "AotArg::String" in text
    assert '"kiln::rotary_embedding.out", kAot_kiln_rotary_embedding_out, 8, 2,' in text
    # An optional tensor may be None; arguments written in place come back as outputs, after
    # the inputs: reshape_and_cache has 5 inputs and 2 outputs, advance_step_flashattn 9 and 4.
    assert "AotArg::OptionalTensor" in text
    assert (
        "kAot_kiln_reshape_and_cache[] = {\n    AotArg::Tensor,\n    AotArg::Tensor,\n"
        "    AotArg::WrittenTensor,\n    AotArg::WrittenTensor,\n    AotArg::Tensor};"
    ) in text
    assert '"kiln::reshape_and_cache", kAot_kiln_reshape_and_cache, 5, 0,' in text
    assert '"kiln::advance_step_flashattn", kAot_kiln_advance_step_flashattn, 9, 0,' in text
    advance = text[text.index("kAot_kiln_advance_step_flashattn[] = {") :]
    assert advance[: advance.index("};")].count("AotArg::WrittenTensor") == 4
    for entry in ("kiln_ms_kiln_reshape_and_cache", "kiln_ms_kiln_advance_step_flashattn"):
        assert f"KILN_AOT_EXPORT int {entry}(" in text
    # Operators MindSpore cannot call say why, with the article the type name takes.
    assert "// aten::cat.out: no entry point, argument 'tensors' is a Tensor[]." in text
    assert "// aten::permute_copy.out: no entry point, argument 'dims' is an int[]." in text
    assert (
        "// aten::copy_: no entry point, it returns a tensor in a result slot of its own (an "
        "in-place or functional form)."
    ) in text


def test_without_the_flag_no_file(tmp_path: Path) -> None:
    run = run_codegen(tmp_path, "--functions-yaml", str(REPO / "functions.yaml"))
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "MindSporeAot.cpp").exists()


def test_aten_mode_is_refused(tmp_path: Path) -> None:
    run = run_codegen(tmp_path, "--root-ops", "aten::add.out", "--aten-mode", "--mindspore-aot")
    assert run.returncode == 1
    assert "--mindspore-aot" in run.stderr and "drop --mindspore-aot" in run.stderr


@pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")
def test_entry_points_compile(tmp_path: Path) -> None:
    _generate(tmp_path)
    compile_syntax(tmp_path, str(tmp_path / "MindSporeAot.cpp"))
