"""ExecuTorch's own functions.yaml and custom_ops.yaml, from the installed executorch 1.5.1
package (tools/setup.sh installs it), go through the codegen unchanged, and the generated C++
compiles (lean and ATen mode).
"""

from __future__ import annotations

import json
import shutil
from importlib import metadata
from pathlib import Path

import pytest
from codegen_testing import CXX, compile_syntax, run_codegen

VERSION = "1.5.1"
YAML_FILES = ("functions.yaml", "custom_ops.yaml")


def executorch_portable_dir() -> Path:
    """executorch/kernels/portable of the installed package; fails (never skips) without it."""
    try:
        installed = metadata.version("executorch")
        import executorch
    except (metadata.PackageNotFoundError, ImportError) as error:
        pytest.fail(f"ExecuTorch {VERSION} is not installed ({error}): run tools/setup.sh")
    assert installed == VERSION, (
        f"ExecuTorch {installed} is installed; tools/setup.sh pins {VERSION}"
    )
    return Path(executorch.__path__[0]) / "kernels" / "portable"


@pytest.fixture(scope="module")
def executorch_yaml(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Copies of the two YAML files, as the package ships them."""
    directory = tmp_path_factory.mktemp("executorch-yaml")
    files = {}
    for name in YAML_FILES:
        files[name] = directory / name
        shutil.copy(executorch_portable_dir() / name, files[name])
    return files


def _generate(yaml: dict[str, Path], out: Path, *flags: str) -> Path:
    run = run_codegen(
        out,
        "--functions-yaml",
        str(yaml["functions.yaml"]),
        "--custom-ops-yaml",
        str(yaml["custom_ops.yaml"]),
        *flags,
        lib_name="executorch_portable",
    )
    assert run.returncode == 0, run.stderr
    return out


@pytest.fixture(scope="module")
def generated(executorch_yaml: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(executorch_yaml, tmp_path_factory.mktemp("executorch-lean"))


def _one_line(path: Path) -> str:
    return " ".join(path.read_text().split())


def test_every_entry_generates(generated: Path) -> None:
    manifest = json.loads((generated / "executorch_portable.manifest.json").read_text())
    names = {op["name"] for op in manifest["operators"]}
    assert len(names) == 209 + 2
    assert {"aten::copy_", "aten::index_put_", "aten::allclose.Tensor"} <= names
    assert {"dim_order_ops::_to_dim_order_copy.out", "et_copy::_h2d_copy.out"} <= names


def test_each_form_binds_as_executorch_declares_it(generated: Path) -> None:
    native = _one_line(generated / "NativeFunctions.h")
    # mutable non-out arguments: batch norm's running statistics
    assert "kiln::Tensor& running_mean, kiln::Tensor& running_var, bool training," in native
    # in-place: kernel_name torch::executor::copy_ binds torch::executor::native::copy_
    assert "kiln::Tensor& copy_( kiln::KernelRuntimeContext& ctx, kiln::Tensor& self," in native
    # float[]?
    assert "std::optional<kiln::ArrayRef<double>> scale_factors, kiln::Tensor& out);" in native
    # a functional custom op returns a new tensor by value
    assert "kiln::Tensor allclose_tensor( kiln::KernelRuntimeContext& ctx," in native
    source = _one_line(generated / "RegisterKernels.cpp")
    assert "kArgs_aten_allclose_Tensor, 1));" in source
    assert "*stack[6] = kiln::EValue(result);" in source
    assert "kArgs_aten_index_put_, 1));" in source


@pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")
def test_generated_code_compiles(generated: Path) -> None:
    compile_syntax(generated, str(generated / "RegisterKernels.cpp"))


@pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")
def test_aten_mode_generated_code_compiles_against_libtorch(
    executorch_yaml: dict[str, Path], tmp_path: Path
) -> None:
    import torch

    out = _generate(executorch_yaml, tmp_path / "aten", "--aten-mode")
    include = Path(torch.__file__).parent / "include"
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    flags = (
        "-std=c++20",  # torch 2.13's headers need C++20 (cmake/KilnAten.cmake asks torch)
        "-DKILN_ATEN_MODE=1",
        f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
        "-isystem",
        str(include),
        "-isystem",
        str(include / "torch/csrc/api/include"),
    )
    compile_syntax(out, str(out / "RegisterKernels.cpp"), flags=flags)


def test_kiln_has_every_executorch_portable_operator(generated: Path) -> None:
    """Kiln registers every operator of ExecuTorch's portable library: no program that runs on
    ExecuTorch's portable kernels fails on Kiln for a missing kernel."""
    import kiln

    manifest = json.loads((generated / "executorch_portable.manifest.json").read_text())
    theirs = {op["name"] for op in manifest["operators"]}
    ours = {kernel["name"] for kernel in kiln.registered_operators()}
    missing = sorted(theirs - ours)
    assert not missing, (
        f"ExecuTorch {VERSION}'s portable library has {len(missing)} operators Kiln lacks: "
        + ", ".join(missing)
    )
