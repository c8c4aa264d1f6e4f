"""ATen mode (-DKILN_ATEN_MODE=ON): the same checkout, examples and API on libtorch's tensors and
kernels, built in its own tree beside the lean one (fixture `aten_build` in conftest.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch
import yaml
from gtest_runs import GTestRun, run_gtest
from test_native import OP_FORMS_LINES

import kiln
from buildtools import REPO_ROOT, cmake_build, cmake_configure, run
from kiln import _aten
from kiln.codegen import cli


def test_add_lib_demo_runs_in_aten_mode(aten_build: Path) -> None:
    result = run([str(aten_build / "examples/add_lib/add_lib_demo")])
    assert "[21, 42, 63]" in result.stdout
    assert "[24, 45, 66]" in result.stdout
    assert "portable kernel (libtorch)" in result.stdout


def test_both_modes_build_from_one_checkout(native_build: Path, aten_build: Path) -> None:
    lean = run([str(native_build / "examples/add_lib/add_lib_demo")]).stdout
    aten = run([str(aten_build / "examples/add_lib/add_lib_demo")]).stdout
    assert "portable kernel (functions.yaml:" in lean
    assert lean.splitlines()[1:] == aten.splitlines()[1:]  # same numbers from both kernels


def test_lean_mode_does_not_link_libtorch(native_build: Path) -> None:
    libraries = run(["ldd", str(native_build / "examples/add_lib/add_lib_demo")]).stdout
    assert "libtorch" not in libraries and "libc10" not in libraries


def test_find_package_of_an_aten_mode_install(aten_build: Path, tmp_path: Path) -> None:
    # The example, unchanged, as a standalone project against an installed ATen-mode Kiln.
    prefix = tmp_path / "prefix"
    run(["cmake", "--install", str(aten_build), "--prefix", str(prefix)])
    cmake_configure(
        REPO_ROOT / "examples/add_lib", tmp_path / "build", f"-DCMAKE_PREFIX_PATH={prefix}"
    )
    cmake_build(tmp_path / "build")
    demo = run([str(tmp_path / "build/add_lib_demo")])
    assert "[24, 45, 66]" in demo.stdout and "(libtorch)" in demo.stdout


def test_custom_op_runs_in_aten_mode(aten_build: Path) -> None:
    lines = run([str(aten_build / "tests/native/custom_op/custom_op_demo")]).stdout.splitlines()
    assert "boxed: 6 12 18" in lines
    assert "typed: 21 42 63" in lines
    assert "mul: 10 40 90" in lines  # aten::mul.out on libtorch beside the user's kernel
    assert (
        "bad: InvalidProgram: kiln_custom::scaled_add.out: argument 1 (b) expected Tensor, got Int"
        in lines
    )


def test_custom_op_forms_run_in_aten_mode(aten_build: Path) -> None:
    result = run([str(aten_build / "tests/native/op_forms/op_forms_demo")])
    assert tuple(result.stdout.splitlines()) == OP_FORMS_LINES


# Every GoogleTest test of tests/native/aten_mode (aten_mode_tests), as Suite.Name. A test added,
# renamed or deleted there must be added, renamed or deleted here too.
ATEN_MODE_TESTS = (
    "AtenModeTest.EValueHoldsATensorReference",
    "AtenModeTest.RegistryHoldsLibtorchKernels",
    "AtenModeTest.LibtorchErrorsBecomeFailuresWithoutItsBacktrace",
    "AtenModeTest.AWrongArgumentTagIsAnUnboxingError",
    "AtenModeTest.KernelKeyReadsTheDimOrderFromStrides",
    "AtenModeTest.ResizeStaysWithinCallerMemory",
    "AtenModeTest.MissingOperatorsAreReported",
    "FunctionsHTest.TypedAddCallsLibtorch",
    "FunctionsHTest.TypedMaxWritesTwoOuts",
    "FunctionsHTest.TypedCatTakesATensorList",
    "FunctionsHTest.TypedIndexTakesAnOptionalTensorList",
    "FunctionsHTest.TypedSumTakesAnOptionalIntList",
)


@pytest.fixture(scope="module")
def aten_mode_tests(aten_build: Path, tmp_path_factory: pytest.TempPathFactory) -> GTestRun:
    """One run of aten_mode_tests (Kiln's runtime API on libtorch), shared by the items below."""
    report = tmp_path_factory.mktemp("aten_mode_tests") / "report.json"
    return run_gtest(aten_build / "tests/native/aten_mode/aten_mode_tests", report)


@pytest.mark.parametrize("name", ATEN_MODE_TESTS)
def test_runtime_api_on_libtorch(aten_mode_tests: GTestRun, name: str) -> None:
    aten_mode_tests.assert_passed(name)


def test_runtime_api_tests_on_libtorch_are_the_expected_ones(aten_mode_tests: GTestRun) -> None:
    aten_mode_tests.assert_ran_exactly(ATEN_MODE_TESTS)


def test_missing_operators_are_logged_on_libtorch(aten_mode_tests: GTestRun) -> None:
    assert re.search(r"Missing operator: \[1\] aten::mul\.out", aten_mode_tests.stderr), (
        aten_mode_tests.stderr
    )


def test_aten_build_follows_torch_abi_and_standard(aten_build: Path) -> None:
    commands = json.loads((aten_build / "compile_commands.json").read_text())
    runtime = next(c["command"] for c in commands if c["file"].endswith("runtime/kernel/unbox.cpp"))
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    assert f"-D_GLIBCXX_USE_CXX11_ABI={abi}" in runtime
    assert "-std=c++20" in runtime  # torch 2.13's headers need C++20
    assert "-DKILN_ATEN_MODE=1" in runtime


def test_python_aten_backend_runs_libtorch(aten_build: Path) -> None:
    out = kiln.call_op(
        "aten::add.out",
        torch.ones(2, 3),
        torch.arange(3.0),
        alpha=2,
        out=torch.empty(0),
        backend="aten",
    )
    torch.testing.assert_close(out, torch.ones(2, 3) + 2 * torch.arange(3.0))
    with pytest.raises(kiln.KilnError, match="must match the size of tensor b") as error:
        kiln.call_op(
            "aten::add.out", torch.ones(2), torch.ones(3), out=torch.empty(0), backend="aten"
        )
    assert error.value.code == "InvalidArgument"
    kernels = _aten.extension().registered_kernels()
    # libtorch has no kernel for custom_ops.yaml's operators (ExecuTorch's allclose is in the aten
    # namespace but not libtorch's, Kiln's LLM operators in kiln): kernels/aten/cpu defines them.
    custom = {k["name"]: k["origin"] for k in kernels if k["origin"] != "libtorch"}
    assert sorted(custom) == _custom_ops_yaml_operators()
    assert all(origin.startswith("custom_ops.yaml:") for origin in custom.values())
    assert all(k["name"].startswith("aten::") for k in kernels if k["origin"] == "libtorch")


def _custom_ops_yaml_operators() -> list[str]:
    """Every operator of the root custom_ops.yaml, qualified (no namespace: aten)."""
    entries = yaml.safe_load((REPO_ROOT / "custom_ops.yaml").read_text())
    names = [entry["func"].split("(", 1)[0] for entry in entries]
    return sorted(name if "::" in name else f"aten::{name}" for name in names)


def _generate(tmp_path: Path, *flags: str) -> Path:
    out = tmp_path / "gen"
    cli.run(["--output-dir", str(out), "--lib-name", "lib", *flags])
    return out


def test_codegen_aten_mode_needs_no_yaml(tmp_path: Path) -> None:
    out = _generate(tmp_path, "--aten-mode", "--root-ops", "aten::add.out,aten::sum")
    native = (out / "NativeFunctions.h").read_text()
    assert "return at::_ops::add_out::call(self, other, alpha, out);" in native
    assert "#include <ATen/ops/sum_ops.h>" in native
    manifest = json.loads((out / "lib.manifest.json").read_text())
    names = [op["name"] for op in manifest["operators"]]
    # "aten::sum" takes every overload Kiln can unbox (not sum.DimnameList_out).
    assert names == ["aten::add.out", "aten::sum.IntList_out", "aten::sum.out"]
    kernels = manifest["operators"][0]["kernels"]
    assert kernels == [
        {
            "backend": "portable",
            "key": "default",
            "kernel_name": "at::_ops::add_out::call",
            "cpp_function": "kiln::libtorch::add_out",
            "source": "libtorch",
        }
    ]
    assert re.search(
        r"\"libtorch\", 0, \d+, kWrites_\w+\}", (out / "RegisterKernels.cpp").read_text()
    )


def test_codegen_aten_mode_keeps_custom_kernels(tmp_path: Path) -> None:
    custom = REPO_ROOT / "tests/native/custom_op/custom_ops.yaml"
    out = _generate(
        tmp_path,
        "--aten-mode",
        "--custom-ops-yaml",
        str(custom),
        "--root-ops",
        "kiln_custom::scaled_add.out,aten::mul.out",
    )
    native = (out / "NativeFunctions.h").read_text()
    assert "my_kernels" in native and "scaled_add_out(" in native
    assert "at::_ops::mul_out::call" in native


def test_codegen_aten_mode_binds_in_place_and_functional_ops(tmp_path: Path) -> None:
    ops = "aten::copy_,aten::add.Tensor,aten::upsample_nearest2d.vec_out"
    out = _generate(tmp_path, "--aten-mode", "--root-ops", ops)
    native = (out / "NativeFunctions.h").read_text()
    # in-place: libtorch writes self and returns it; after an exception the adapter returns self
    copy = native[native.index("inline kiln::Tensor& copy_(") :]
    assert "return at::_ops::copy_::call(self, src, non_blocking);" in copy
    assert copy.index("  return self;\n}") < copy.index("inline", 1)
    # functional: libtorch's new tensor by value; an undefined one after an exception
    add = native[native.index("inline kiln::Tensor add_Tensor(") :]
    assert "return at::_ops::add_Tensor::call(self, other, alpha);" in add
    assert add.index("  return {};\n}") < add.index("inline", 1)
    assert "kiln::aten_bridge::optional_double_list(scale_factors)" in native
    source = " ".join((out / "RegisterKernels.cpp").read_text().split())
    assert "kiln::Tensor result = kiln::libtorch::add_Tensor(" in source
    assert "*stack[3] = kiln::EValue(result);" in source


def test_codegen_aten_mode_needs_a_selection(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--aten-mode", "--output-dir", "x", "--lib-name", "x"]) == 1
    assert "--aten-mode: no operators given" in capsys.readouterr().err


def test_aten_mode_functions_yaml_matches_lean_operators(tmp_path: Path) -> None:
    yaml = str(REPO_ROOT / "functions.yaml")
    lean = _generate(tmp_path / "lean", "--functions-yaml", yaml)
    aten = _generate(tmp_path / "aten", "--functions-yaml", yaml, "--aten-mode")
    lean_ops = json.loads((lean / "lib.manifest.json").read_text())["operators"]
    aten_ops = json.loads((aten / "lib.manifest.json").read_text())["operators"]
    strip = [{k: v for k, v in op.items() if k != "kernels"} for op in lean_ops]
    assert strip == [{k: v for k, v in op.items() if k != "kernels"} for op in aten_ops]
