"""--dtype-selective-build: per-source dtype masks, the unboxing guard and their errors."""

from __future__ import annotations

from pathlib import Path

from codegen_testing import REPO, run_codegen, write

FUNCTIONS_YAML = str(REPO / "functions.yaml")
CPU = REPO / "kernels" / "portable" / "cpu"
FLOAT_ADD = (
    "operators:\n  aten::add.out: {}\n  aten::mm.out: {}\n"
    "et_kernel_metadata:\n"
    "  aten::add.out: ['v1/6;0,1|6;0,1|6;0,1']\n"
    "  aten::mm.out: ['v1/6;0,1|6;0,1|6;0,1', 'v1/7;0,1|7;0,1|7;0,1']\n"
)


def source_list(tmp_path: Path, *names: str) -> str:
    return write(tmp_path, "sources.txt", "".join(f"{CPU / name}\n" for name in names))


def generate(tmp_path: Path, selection: str, sources: str) -> tuple[int, str, Path]:
    out = tmp_path / "out"
    run = run_codegen(
        out,
        "--functions-yaml",
        FUNCTIONS_YAML,
        "--selected-ops",
        write(tmp_path, "sel.yaml", selection),
        "--dtype-selective-build",
        sources,
    )
    return run.returncode, run.stderr, out


def test_each_source_gets_its_operators_dtypes(tmp_path: Path) -> None:
    sources = source_list(
        tmp_path, "op_add.cpp", "op_mm.cpp", "op_relu.cpp", "util/linalg/gemm.cpp"
    )
    code, stderr, out = generate(tmp_path, FLOAT_ADD, sources)
    assert code == 0, stderr
    add = (out / "dtype_selected" / "op_add.cpp").read_text()
    assert "#define KILN_SELECTED_DTYPES 0x40ull  // Float\n" in add
    assert f'#include "{CPU / "op_add.cpp"}"' in add
    assert (
        "#define KILN_SELECTED_DTYPES 0xc0ull  // Float, Double"
        in (out / "dtype_selected" / "op_mm.cpp").read_text()
    )
    # Shared code serves every selected operator: the union of the masks.
    gemm = (out / "dtype_selected" / "util_linalg_gemm.cpp").read_text()
    assert "shared kernel code" in gemm and "0xc0ull  // Float, Double" in gemm
    relu = (out / "dtype_selected" / "op_relu.cpp").read_text()
    assert "#include" not in relu and "nothing is compiled" in relu


def test_unboxing_refuses_unselected_dtypes(tmp_path: Path) -> None:
    code, stderr, out = generate(
        tmp_path, FLOAT_ADD, source_list(tmp_path, "op_add.cpp", "op_mm.cpp")
    )
    assert code == 0, stderr
    register = (out / "RegisterKernels.cpp").read_text()
    assert (
        "kiln::check_selected_dtypes(ctx, stack, kArgs_aten_add_out, kiln::selected::aten_add_out)"
        in register
    )
    assert '#include "selected_op_variants.h"' in register


def test_unrestricted_operators_compile_every_dtype_and_skip_the_check(tmp_path: Path) -> None:
    selection = "operators:\n  aten::add.out: {}\n"
    code, stderr, out = generate(tmp_path, selection, source_list(tmp_path, "op_add.cpp"))
    assert code == 0, stderr
    assert "(~uint64_t{0})  // every dtype" in (out / "dtype_selected" / "op_add.cpp").read_text()
    assert "check_selected_dtypes" not in (out / "RegisterKernels.cpp").read_text()


def test_without_the_flag_nothing_is_checked(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = run_codegen(
        out,
        "--functions-yaml",
        FUNCTIONS_YAML,
        "--selected-ops",
        write(tmp_path, "sel.yaml", FLOAT_ADD),
    )
    assert run.returncode == 0, run.stderr
    assert "check_selected_dtypes" not in (out / "RegisterKernels.cpp").read_text()
    assert not (out / "dtype_selected").exists()


def test_a_kernel_missing_from_the_sources_is_an_error(tmp_path: Path) -> None:
    sources = source_list(tmp_path, "op_relu.cpp")
    code, stderr, _ = generate(tmp_path, FLOAT_ADD, sources)
    assert code == 1
    assert (
        f"{sources}: aten::add.out: its portable kernel kiln::portable::native::add_out" in stderr
    )
    assert "belongs in kernels/portable/cpu/op_add.cpp, which is not among the 1 operator" in stderr
    assert "(declared at " in stderr and "functions.yaml:" in stderr


def test_a_kernel_outside_its_operator_source_is_an_error(tmp_path: Path) -> None:
    # op_add.cpp is listed but (here) defines no add_out: the kernel must live in its own file.
    impostor = tmp_path / "cpu" / "op_add.cpp"
    impostor.parent.mkdir()
    impostor.write_text("// nothing here\n")
    sources = write(tmp_path, "sources.txt", f"{impostor}\n")
    code, stderr, _ = generate(tmp_path, FLOAT_ADD, sources)
    assert code == 1
    assert f"{impostor}: aten::add.out: its portable kernel" in stderr
    assert "is not defined here" in stderr


def test_aten_mode_refuses_dtype_selection(tmp_path: Path) -> None:
    run = run_codegen(
        tmp_path / "out",
        "--aten-mode",
        "--root-ops",
        "add.out",
        "--dtype-selective-build",
        source_list(tmp_path, "op_add.cpp"),
    )
    assert run.returncode == 1
    assert "--dtype-selective-build: dtype selection compiles Kiln's portable kernels" in run.stderr
