"""tools/ascend_check.py without CANN: its argument errors and which kernels it would check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from buildtools import REPO_ROOT, load_script

TOOL = REPO_ROOT / "tools" / "ascend_check.py"


ascend_check = load_script(TOOL, "ascend_check")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, cwd=REPO_ROOT
    )


def _fake_toolkit(root: Path) -> Path:
    """The two header trees the tool looks for, with the one file it checks in each."""
    basic_api = root / "x86_64-linux" / "ascendc" / "include" / "basic_api"
    basic_api.mkdir(parents=True)
    (basic_api / "kernel_operator.h").write_text("")
    stubs = root / "tools" / "tikicpulib" / "lib" / "include"
    stubs.mkdir(parents=True)
    (stubs / "stub_def.h").write_text("")
    return root


def _assert_usage_error(done: subprocess.CompletedProcess[str], argument: str) -> None:
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ascend_check: {argument}:"), done.stderr
    assert done.stdout == ""


def test_a_directory_without_cann_headers_is_rejected(tmp_path: Path) -> None:
    _assert_usage_error(_run("--cann", str(tmp_path)), "--cann")


def test_a_missing_path_is_rejected(tmp_path: Path) -> None:
    _assert_usage_error(_run("--cann", str(tmp_path / "missing")), "--cann")


def test_an_unknown_soc_is_rejected(tmp_path: Path) -> None:
    done = _run("--cann", str(_fake_toolkit(tmp_path)), "--soc", "Ascend999")
    _assert_usage_error(done, "--soc")
    assert "Ascend910B" in done.stderr and "Ascend310P" in done.stderr


def test_a_missing_compiler_is_rejected(tmp_path: Path) -> None:
    done = _run("--cann", str(_fake_toolkit(tmp_path)), "--cxx", "no-such-compiler")
    _assert_usage_error(done, "--cxx")


def test_a_source_that_is_not_a_kernel_is_rejected(tmp_path: Path) -> None:
    done = _run("--cann", str(_fake_toolkit(tmp_path)), "--kernels", "runtime/foo.cpp")
    _assert_usage_error(done, "--kernels")


@pytest.mark.parametrize("layout", ["version", "latest", "install_root"])
def test_toolkit_layouts_are_found(tmp_path: Path, layout: str) -> None:
    version = tmp_path / "Ascend" / "ascend-toolkit" / "8.1.RC1"
    _fake_toolkit(version)
    (version.parent / "latest").symlink_to(version)
    given = {
        "version": version,
        "latest": version.parent,
        "install_root": tmp_path / "Ascend",
    }[layout]
    toolkit = ascend_check.find_toolkit(given)
    assert toolkit.ascendc_include.name == "include"
    assert (toolkit.ascendc_include / "basic_api" / "kernel_operator.h").is_file()
    assert (toolkit.cpu_stub_include / "stub_def.h").is_file()


def test_every_kernel_family_is_found_with_its_core_type() -> None:
    kernels = ascend_check.discover_kernels()
    families = sorted(p.name for p in (REPO_ROOT / "kernels" / "ascend").glob("op_*"))
    assert [k.path.parts[-2] for k in kernels] == families
    for kernel in kernels:
        assert kernel.path.name == kernel.path.parts[-2].removeprefix("op_") + "_kernel.cpp"
        assert kernel.core == ("CUBE" if kernel.path.parts[-2] == "op_matmul" else "VEC")


def test_kernels_can_be_named() -> None:
    kernels = ascend_check.discover_kernels(["kernels/ascend/op_unary/unary_kernel.cpp"])
    assert [k.label for k in kernels] == ["op_unary/unary_kernel.cpp"]
    assert [k.core for k in kernels] == ["VEC"]


def test_soc_defines() -> None:
    socs = ascend_check.SOCS
    assert "-D__DAV_C220_CUBE__" in socs["Ascend910B"].defines("CUBE")
    assert "-D__CCE_AICORE__=220" in socs["Ascend910B"].defines("VEC")
    assert not any("_VEC__" in d for d in socs["Ascend310P"].defines("VEC"))
    assert "-D__CCE_AICORE__=200" in socs["Ascend310P"].defines("VEC")


def test_host_check_needs_the_acl_headers(tmp_path: Path) -> None:
    done = _run("--cann", str(_fake_toolkit(tmp_path)), "--host")
    _assert_usage_error(done, "--host")
    assert "acl/acl.h" in done.stderr


def test_host_headers_are_found_beside_the_ascend_c_headers(tmp_path: Path) -> None:
    root = _fake_toolkit(tmp_path)
    acl = root / "x86_64-linux" / "include" / "acl"
    acl.mkdir(parents=True)
    (acl / "acl.h").write_text("")
    highlevel = root / "x86_64-linux" / "ascendc" / "include" / "highlevel_api"
    (highlevel / "tiling" / "platform").mkdir(parents=True)
    (highlevel / "tiling" / "platform" / "platform_ascendc.h").write_text("")
    headers = ascend_check.find_host_headers(ascend_check.find_toolkit(root))
    assert headers.acl_include == root / "x86_64-linux" / "include"
    assert headers.platform_include == highlevel
    assert ascend_check.HOST_SOURCES == ("kernels/ascend/common/host_cann.cpp",)
