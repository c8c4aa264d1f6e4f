"""The CMake API from outside the repo: add_subdirectory, find_package after install, and clear
errors for bad arguments."""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import kiln
from buildtools import BUILD_ROOT, REPO_ROOT, cmake_build, cmake_configure, run
from kiln.codegen.selective_build.kernel_sources import needed_sources

PROJECTS = Path(__file__).parent / "cmake_projects"


def test_add_subdirectory_project_builds_and_registers() -> None:
    build = BUILD_ROOT / "pytest-subdirectory"
    cmake_configure(PROJECTS / "subdirectory", build, f"-DKILN_SOURCE_DIR={REPO_ROOT}")
    cmake_build(build)
    demo = run([str(build / "add_lib_demo")])
    assert "[21, 42, 63]" in demo.stdout
    auto = run([str(build / "auto_registration")])
    assert sorted(auto.stdout.split()) == ["aten::mul.out", "aten::relu.out"]


def test_add_only_build_compiles_only_the_selected_kernels(tmp_path: Path) -> None:
    # From clean, the add library compiles op_add.cpp and the util/ sources it includes, not
    # the whole kernel archive: no other operator's object appears in the tree.
    build = tmp_path / "build"
    cmake_configure(PROJECTS / "subdirectory", build, f"-DKILN_SOURCE_DIR={REPO_ROOT}")
    cmake_build(build, "add_lib_demo")
    objects = {path.name for path in build.rglob("*.o")}
    assert {"op_add.cpp.o", "binary_driver.cpp.o", "broadcast.cpp.o"} <= objects, objects
    assert not {"op_convolution.cpp.o", "op_sub.cpp.o", "gemm.cpp.o"} & objects, objects
    assert not list(build.rglob("libkiln_portable_kernels.a"))
    assert "[21, 42, 63]" in run([str(build / "add_lib_demo")]).stdout


def _symbols(object_file: Path) -> tuple[set[str], set[str]]:
    """(defined, undefined) global symbols of an object file."""
    defined, undefined = set(), set()
    for line in run(["nm", str(object_file)]).stdout.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == "U":
            undefined.add(fields[1])
        elif len(fields) == 3 and fields[1] in "TDBRWV":
            defined.add(fields[2])
    return defined, undefined


def test_each_operator_plan_links_alone(native_build: Path) -> None:
    # The sources planned for one operator (its op_<name>.cpp and the util/ sources its
    # #include graph reaches) define every symbol they use that the kernel archive defines:
    # a util source declared in a header of another name would be missed, and fail to link.
    portable = REPO_ROOT / "kernels/portable"
    objects = native_build / "kernels/portable/CMakeFiles/kiln_portable_kernels.dir"
    listed = sorted(str(p) for p in (portable / "cpu").rglob("*.cpp"))
    symbols = {p: _symbols(objects / f"{Path(p).relative_to(portable)}.o") for p in listed}
    owner = {name: p for p, (defined, _) in symbols.items() for name in defined}
    missing = {}
    for path in listed:
        if Path(path).name.startswith("op_"):
            op = f"aten::{Path(path).stem[3:]}.out"
            plan = needed_sources([op], listed, str(portable), [str(REPO_ROOT)]).sources
            defined = set().union(*(symbols[p][0] for p in plan))
            used = set().union(*(symbols[p][1] for p in plan))
            absent = {Path(owner[name]).name for name in used - defined if name in owner}
            if absent:
                missing[Path(path).name] = sorted(absent)
    assert missing == {}


@pytest.fixture(scope="module")
def installed_prefix(native_build: Path) -> Path:
    """`cmake --install` of the native build, in a fixed place: an install copies only changed
    files and keeps their times, so consumer projects built against it stay incremental."""
    prefix = BUILD_ROOT / "pytest-install"
    run(["cmake", "--install", str(native_build), "--prefix", str(prefix)])
    return prefix


@dataclass(frozen=True)
class PipInstall:
    """Kiln installed by pip from a wheel, in an environment of its own."""

    python: Path  # the environment's interpreter
    prefix: Path  # what kiln.cmake_prefix_path says there


def _site_packages(python: Path | str) -> Path:
    code = "import sysconfig; print(sysconfig.get_paths()['platlib'])"
    return Path(run([str(python), "-c", code]).stdout.strip())


@pytest.fixture(scope="module")
def pip_installed() -> PipInstall:
    """A real wheel of this checkout, built (incrementally, in the build tree that the editable
    install uses) and installed into an environment away from the editable install: a venv whose
    only link to this one is a .pth line naming its site-packages, for torch and pyyaml. (With
    --system-site-packages the editable install's import hook would come along and answer
    `import kiln`.) An unchanged wheel is not reinstalled."""
    wheel_dir = BUILD_ROOT / "wheel"
    for old in wheel_dir.glob("kiln-*.whl"):
        old.unlink()
    run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps"]
        + [str(REPO_ROOT), "-w", str(wheel_dir)]
    )
    (wheel,) = wheel_dir.glob("kiln-*.whl")
    environment = BUILD_ROOT / "pytest-wheel-env"
    python = environment / "bin/python"
    if not python.exists():
        run([sys.executable, "-m", "venv", "--without-pip", str(environment)])
    site_packages = _site_packages(python)
    (site_packages / "kiln_test_dependencies.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n"
    )
    with zipfile.ZipFile(wheel) as archive:
        (record_name,) = [n for n in archive.namelist() if n.endswith(".dist-info/RECORD")]
        record = archive.read(record_name)
    stamp = environment / "installed-wheel-RECORD"
    if not stamp.exists() or stamp.read_bytes() != record:
        pip_install = [str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall"]
        run([*pip_install, str(wheel)])
        stamp.write_bytes(record)
    code = "import kiln; print(kiln.cmake_prefix_path)"
    prefix = Path(run([str(python), "-c", code]).stdout.strip())
    return PipInstall(python, prefix)


def test_find_package_after_install(installed_prefix: Path, tmp_path: Path) -> None:
    # The example is a standalone project when configured on its own.
    cmake_configure(
        REPO_ROOT / "examples/add_lib",
        tmp_path / "build",
        f"-DCMAKE_PREFIX_PATH={installed_prefix}",
    )
    cmake_build(tmp_path / "build")
    demo = run([str(tmp_path / "build/add_lib_demo")])
    assert "[24, 45, 66]" in demo.stdout


def test_custom_op_keeps_kiln_operators(installed_prefix: Path, tmp_path: Path) -> None:
    # A user's own YAML and kernels in kiln_add_operator_library still select Kiln's operators,
    # those of its custom_ops.yaml included.
    cmake_configure(
        REPO_ROOT / "tests/cmake_projects/custom_and_kiln_ops",
        tmp_path / "build",
        f"-DCMAKE_PREFIX_PATH={installed_prefix}",
    )
    cmake_build(tmp_path / "build")
    lines = run([str(tmp_path / "build/acme_demo")]).stdout.splitlines()
    assert lines == [
        "doubled: -2 0 4",
        "sigmoid: 0.1192 0.5000 0.9820",
        "clone of copy_: -2 0 4 -2 0 4",
    ]


def _build_installed_backends_project(build: Path, prefix: Path, python: Path | str) -> None:
    """Builds tests/cmake_projects/installed_backends against the Kiln at `prefix`, checks that its
    dtype-selective library compiles the portable kernel sources installed there, and runs it."""
    cmake_configure(
        PROJECTS / "installed_backends",
        build,
        f"-DCMAKE_PREFIX_PATH={prefix}",
        f"-DKILN_PYTHON_EXECUTABLE={python}",
    )
    cmake_build(build)
    add_copy = (build / "float_ops/dtype_selected/op_add.cpp").read_text()
    assert f'#include "{prefix}/' in add_copy, add_copy
    backends = run([str(build / "backends_demo")]).stdout.splitlines()
    assert backends == [
        "doubled: -2 0 4",
        "add on portable (served by portable): -3 0 6",
        "add on ascend (served by ascend): -3 0 6",
        "fallbacks: 0",
    ]
    dtype_selective = run([str(build / "dtype_selective_demo")]).stdout.splitlines()
    assert dtype_selective == ["float add: 11 22 33", "double add: NotSupported"]


def test_cmake_installed_kiln_builds_both_backends_and_dtype_selective(
    installed_prefix: Path,
) -> None:
    # Kiln::ascend_kernels and the emulator come with find_package(Kiln), and
    # DTYPE_SELECTIVE_BUILD compiles the installed kernel sources: no source tree needed.
    build = BUILD_ROOT / "pytest-consumer-cmake-install"
    _build_installed_backends_project(build, installed_prefix, sys.executable)


def test_pip_installed_kiln_builds_both_backends_and_dtype_selective(
    pip_installed: PipInstall,
) -> None:
    # The wheel carries the CMake package inside the kiln package; kiln.cmake_prefix_path finds it.
    assert pip_installed.prefix == _site_packages(pip_installed.python) / "kiln"
    build = BUILD_ROOT / "pytest-consumer-pip-install"
    _build_installed_backends_project(build, pip_installed.prefix, pip_installed.python)


def test_editable_install_has_a_cmake_prefix_path(tmp_path: Path) -> None:
    # The editable install the tests run on keeps its built files in site-packages: the CMake
    # package is there too, not in the source tree.
    prefix = Path(kiln.cmake_prefix_path)
    assert (prefix / "lib/cmake/Kiln/KilnConfig.cmake").is_file()
    assert prefix != REPO_ROOT / "python/kiln"
    cmake_configure(
        REPO_ROOT / "examples/add_lib", tmp_path / "build", f"-DCMAKE_PREFIX_PATH={prefix}"
    )
    cmake_build(tmp_path / "build")
    demo = run([str(tmp_path / "build/add_lib_demo")])
    assert "[24, 45, 66]" in demo.stdout


def test_installed_kiln_reads_the_runtime_backend_list(
    installed_prefix: Path, tmp_path: Path
) -> None:
    listed = (REPO_ROOT / "runtime/kernel/backends.def").read_text()
    header = installed_prefix / "include/kiln/runtime/kernel/backends.def"
    codegen_copy = installed_prefix / "share/kiln/python/kiln/codegen/model/backends.def"
    assert header.read_text() == listed
    assert codegen_copy.read_text() == listed
    # The installed codegen has no source tree around it: it reads its own copy (-S: without
    # site-packages, where an editable kiln would map kiln to the source tree).
    code = (
        f"import sys; sys.path.insert(0, {str(codegen_copy.parents[3])!r}); "
        "from kiln.codegen.model import backends; "
        "print(backends.LIST_FILE); print(*backends.BACKENDS)"
    )
    read = run([sys.executable, "-S", "-c", code]).stdout.split("\n")
    assert read[0] == str(codegen_copy)
    names = read[1].split()
    assert names[:2] == ["portable", "ascend"]
    stderr = _configure_user_project(
        tmp_path,
        installed_prefix,
        "generate_bindings_for_kernels(LIB_NAME l FUNCTIONS_YAML ${KILN_FUNCTIONS_YAML} "
        "BACKENDS nope)",
    )
    assert f"unknown backend 'nope'; known backends: {';'.join(names)}" in " ".join(stderr.split())


def _configure_user_project(tmp_path: Path, prefix: Path, body: str) -> str:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.22)\nproject(bad LANGUAGES CXX)\n"
        f"find_package(Kiln REQUIRED)\n{body}\n"
    )
    result = run(
        [
            "cmake",
            "-S",
            str(tmp_path / "src"),
            "-B",
            str(tmp_path / "build"),
            "-G",
            "Ninja",
            f"-DCMAKE_PREFIX_PATH={prefix}",
            f"-DKILN_PYTHON_EXECUTABLE={sys.executable}",
        ],
        check=False,
    )
    assert result.returncode != 0, "configure should have failed"
    return result.stderr


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("gen_selected_ops(ROOT_OPS aten::add.out)", "gen_selected_ops: LIB_NAME is required"),
        ("gen_selected_ops(LIB_NAME my-ops ROOT_OPS x)", "must be a C identifier"),
        (
            "gen_selected_ops(LIB_NAME l)",
            "give at least one of ROOT_OPS, OPS_YAML, MODEL or INCLUDE_ALL_OPS",
        ),
        ("gen_selected_ops(BOGUS 1 LIB_NAME l ROOT_OPS x)", "unknown arguments: BOGUS;1"),
        (
            "generate_bindings_for_kernels(LIB_NAME l FUNCTIONS_YAML /nonexistent.yaml)",
            "FUNCTIONS_YAML file '/nonexistent.yaml' does not exist",
        ),
        (
            "generate_bindings_for_kernels(LIB_NAME l FUNCTIONS_YAML ${KILN_FUNCTIONS_YAML} "
            "BACKENDS portable cuda)",
            "unknown backend 'cuda'",
        ),
        (
            "gen_operators_lib(LIB_NAME l KERNEL_LIBS kiln_portable_kernels)",
            "call generate_bindings_for_kernels(LIB_NAME l ...) first",
        ),
        (
            "generate_bindings_for_kernels(LIB_NAME l FUNCTIONS_YAML ${KILN_FUNCTIONS_YAML})\n"
            "gen_operators_lib(LIB_NAME l KERNEL_LIBS no_such_lib)",
            "'no_such_lib' is not a CMake target",
        ),
        (
            "kiln_add_operator_library(ROOT_OPS aten::add.out)",
            "kiln_add_operator_library: NAME is required",
        ),
        (
            "kiln_add_operator_library(NAME l ROOT_OPS aten::add.out BACKENDS tpu)",
            "unknown backend 'tpu'",
        ),
        (
            # As a Kiln built with -DKILN_ASCEND=off (or in ATen mode) configures it.
            "set(KILN_ASCEND off)\n"
            "kiln_add_operator_library(NAME l ROOT_OPS aten::add.out BACKENDS portable ascend)",
            "BACKENDS names ascend, but this Kiln is built without the Ascend backend",
        ),
    ],
)
def test_bad_cmake_arguments_fail_clearly(
    installed_prefix: Path, tmp_path: Path, body: str, message: str
) -> None:
    stderr = _configure_user_project(tmp_path, installed_prefix, body)
    assert message in " ".join(stderr.split())


def test_cmake_build_flags_reject_unknown_values(tmp_path: Path) -> None:
    result = run(
        ["cmake", "-S", str(REPO_ROOT), "-B", str(tmp_path), "-G", "Ninja", "-DKILN_ASCEND=gpu"],
        check=False,
    )
    assert result.returncode != 0
    assert "KILN_ASCEND must be off, emu or cann (got 'gpu')" in result.stderr
    shutil.rmtree(tmp_path, ignore_errors=True)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([], "KILN_ASCEND=cann needs CANN: pass -DASCEND_CANN_PACKAGE_PATH=<CANN install>"),
        (
            ["-DASCEND_CANN_PACKAGE_PATH=/nonexistent/cann"],
            "ASCEND_CANN_PACKAGE_PATH '/nonexistent/cann' does not exist",
        ),
        (["-DASCEND_CANN_PACKAGE_PATH={empty}"], "KILN_ASCEND=cann needs -DSOC_VERSION=<SoC>"),
        (
            ["-DASCEND_CANN_PACKAGE_PATH={empty}", "-DSOC_VERSION=Ascend910B3"],
            "no ascendc.cmake under",
        ),
    ],
)
def test_missing_cann_is_a_loud_configure_error(
    tmp_path: Path, flags: list[str], message: str
) -> None:
    empty = tmp_path / "not-cann"
    empty.mkdir()
    build = tmp_path / "build"
    command = ["cmake", "-S", str(REPO_ROOT), "-B", str(build), "-G", "Ninja", "-DKILN_ASCEND=cann"]
    command += [flag.format(empty=empty) for flag in flags]
    environment = {**os.environ, "ASCEND_CANN_PACKAGE_PATH": ""}
    result = subprocess.run(command, capture_output=True, text=True, env=environment)
    assert result.returncode != 0
    assert message in " ".join(result.stderr.split())


# Stands in for CANN's ascendc.cmake where the configure is concerned: like CANN 8.1.RC1's
# host_config.cmake it sets CMAKE_SKIP_RPATH in the directory that includes it; like its
# host_intf.cmake it has an interface target with CANN's host link options, which its
# ascendc_library links privately into a static library (made from one empty function, as no
# bisheng is here).
FAKE_ASCENDC_CMAKE = """\
set(CMAKE_SKIP_RPATH TRUE)
add_library(host_intf_pub INTERFACE)
target_link_options(host_intf_pub INTERFACE $<$<CONFIG:Release>:-s> -Wl,-z,now)
function(ascendc_library name type)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/${name}_fake.cpp" "void ${name}_fake() {}\\n")
  add_library(${name} ${type} "${CMAKE_CURRENT_BINARY_DIR}/${name}_fake.cpp")
  target_link_libraries(${name} PRIVATE $<BUILD_INTERFACE:host_intf_pub> INTERFACE ascendcl)
endfunction()
function(ascendc_include_directories)
endfunction()
"""
RPATH_PROBE = "/kiln-rpath-probe"


def _linked_targets(build_ninja: str) -> dict[str, str]:
    """Each executable and shared library of a Ninja build, with its link statement."""
    linked: dict[str, str] = {}
    for block in build_ninja.split("\n\n"):
        match = re.match(
            r"build ([^:|\s]+)[^:]*: CXX_(EXECUTABLE|SHARED_LIBRARY|MODULE)_LINKER__", block.strip()
        )
        if match:
            linked[match.group(1)] = block
    return linked


def _configure_with_fake_cann(
    tmp_path: Path, *flags: str, platform_header: bool = True
) -> subprocess.CompletedProcess[str]:
    """Configures Kiln with KILN_ASCEND=cann against a fake CANN tree in tmp_path/cann."""
    cann = tmp_path / "cann"
    cmake_dir = cann / "compiler/tikcpp/ascendc_kernel_cmake"
    cmake_dir.mkdir(parents=True)
    (cmake_dir / "ascendc.cmake").write_text(FAKE_ASCENDC_CMAKE)
    if platform_header:
        (cann / "include/tiling/platform").mkdir(parents=True)
        (cann / "include/tiling/platform/platform_ascendc.h").write_text("")
    command = ["cmake", "-S", str(REPO_ROOT), "-B", str(tmp_path / "build"), "-G", "Ninja"]
    # The configure runs the codegen (operator selection), with this session's Python.
    command += [f"-DKILN_PYTHON_EXECUTABLE={sys.executable}"]
    command += ["-DKILN_ASCEND=cann", f"-DASCEND_CANN_PACKAGE_PATH={cann}"]
    command += ["-DSOC_VERSION=Ascend910B3", *flags]
    return subprocess.run(command, capture_output=True, text=True)


def test_cann_cmake_keeps_the_rpath_of_kilns_other_targets(tmp_path: Path) -> None:
    result = _configure_with_fake_cann(
        tmp_path,
        "-DKILN_BUILD_TESTS=ON",
        "-DKILN_BUILD_EXAMPLES=ON",
        f"-DCMAKE_BUILD_RPATH={RPATH_PROBE}",
    )
    assert result.returncode == 0, result.stderr
    build = tmp_path / "build"
    linked = _linked_targets((build / "build.ninja").read_text())
    # The examples and native tests are linked in directories of their own, after
    # kernels/ascend included CANN's cmake: each keeps the RPATH the build asks for.
    assert "examples/add_lib/add_lib_demo" in linked
    assert len(linked) >= 3
    assert [t for t, link in linked.items() if f"-rpath,{RPATH_PROBE}" not in link] == []
    # Those that use the Ascend kernels link CANN's runtime, but not the link options CANN keeps
    # for its own host code (-s would strip them).
    ascend_users = [t for t, link in linked.items() if "-lascendcl" in link or "ascendcl" in link]
    assert ascend_users
    assert [t for t in ascend_users if re.search(r"\s-s\s|z,now", linked[t])] == []


def test_cann_without_the_platform_header_is_a_configure_error(tmp_path: Path) -> None:
    result = _configure_with_fake_cann(tmp_path, platform_header=False)
    assert result.returncode != 0
    assert "no tiling/platform/platform_ascendc.h under" in " ".join(result.stderr.split())
