"""The portable kernels' plain paths, which the ISA room's microkernels (kernels/portable/cpu/isa/,
docs/vector_math.md#the-isa-room) stand in for on most machines: the op tests of every family with
a microkernel, re-run in a process capped to them (KILN_CPU_ISA=baseline), and a tree built without
the room (KILN_PORTABLE_ISA=OFF), so that neither path can rot."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest
from gtest_runs import run_gtest

from buildtools import BUILD_ROOT, REPO_ROOT, cmake_build, cmake_configure, run

# The op tests of the families with a microkernel: 16-bit conversions, Half and BFloat16 binary
# rows, sum/prod/mean, the NaN-winning max/min, the exp-and-sum of softmax and logsumexp, and the
# gemm behind mm, bmm, addmm, linear and convolution.
FAMILY_TESTS = (
    "test_to_copy.py",
    "test_half_conversion.py",
    "test_add.py",
    "test_mul.py",
    "test_div.py",
    "test_rsub.py",
    "test_maximum.py",
    "test_same_dtype_rows.py",
    "test_sum.py",
    "test_mean.py",
    "test_prod.py",
    "test_amax.py",
    "test_max.py",
    "test_softmax.py",
    "test_logsumexp.py",
    "test_mm.py",
    "test_matmul.py",
    "test_convolution.py",
)


def test_family_op_tests_pass_on_the_plain_paths() -> None:
    env = {**os.environ, "KILN_CPU_ISA": "baseline", "KILN_OP_TEST_BACKENDS": "portable"}
    paths = [str(REPO_ROOT / "tests" / "ops" / name) for name in FAMILY_TESTS]
    # Not capturing, so that the kernels' log line saying the cap was read reaches stderr.
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", *paths],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert " passed" in result.stdout.splitlines()[-1], result.stdout[-2000:]
    assert "KILN_CPU_ISA=baseline caps the portable kernels' microkernels" in result.stderr


def test_an_unknown_cpu_isa_is_reported_and_ignored() -> None:
    script = (
        "import torch, kiln\n"
        "a = torch.ones(64, dtype=torch.float16)\n"
        "out = kiln.call_op('aten::add.out', a, a, out=torch.empty(0, dtype=torch.float16))\n"
        "torch.testing.assert_close(out, torch.full((64,), 2.0, dtype=torch.float16))\n"
        "print('checked')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "KILN_CPU_ISA": "avx512"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0 and result.stdout.strip() == "checked", result.stderr
    assert "KILN_CPU_ISA=avx512 is not an ISA level; set it to baseline or x86-64-v3" in (
        result.stderr
    )


# kernel_row_tests without the room: the plain loops' tests run, the ISA versions' skip.
PLAIN_ROW_TESTS = (
    "BFloat16RowsTest.ArithmeticAgreesInlineAndInChunks",
    "BFloat16RowsTest.PredicatesAgreeInlineAndInChunks",
    "BFloat16RowsTest.AnExactFloatScalarAgreesInlineAndInChunks",
    "ConvertRowsTest.DoubleMeetsHalfAndBFloat16ThroughFloat",
    "ConvertRowsTest.Int64MeetsHalfAndBFloat16ThroughFloat",
    "ExtremeNanTest.FloatMaxAndMin",
    "ExtremeNanTest.DoubleMaxAndMin",
    "ExpSumTest.FloatRowsInBothVersions",
)
ISA_ROW_TESTS = (
    "ConvertRowsTest.TheIsaRowsGiveTheScalarConvertersBits",
    "HalfRowsTest.ArithmeticAgreesInlineAndInChunks",
    "HalfRowsTest.SelectsAgreeInlineAndInChunks",
    "HalfRunTotalTest.SumsGiveTheFloatRunsBits",
    "HalfRunTotalTest.ProductsGiveTheFloatRunsBits",
)


@pytest.fixture(scope="module")
def plain_build() -> Path:
    """Kiln configured with KILN_PORTABLE_ISA=OFF: the kernel library, add_lib (an operator library
    compiling its kernel sources itself) and the row tests (incremental across runs)."""
    build = BUILD_ROOT / "pytest-plain-isa"
    cmake_configure(
        REPO_ROOT,
        build,
        "-DKILN_PORTABLE_ISA=OFF",
        "-DKILN_BUILD_TESTS=ON",
        "-DKILN_BUILD_EXAMPLES=ON",
        "-DKILN_ASCEND=off",
    )
    cmake_build(build, "kiln_portable_kernels", "add_lib_demo", "kernel_row_tests")
    return build


def clone_symbols(archive: Path) -> list[str]:
    """Symbols of the compiler's x86-64 clones and target functions in an archive."""
    symbols = run(["nm", "--defined-only", "-C", str(archive)]).stdout.splitlines()
    return [s for s in symbols if "arch_x86_64" in s or "resolver" in s or "isa::x86" in s]


def test_a_build_without_the_isa_room_compiles_no_isa_code(plain_build: Path) -> None:
    archive = plain_build / "kernels" / "portable" / "libkiln_portable_kernels.a"
    members = set(run(["ar", "t", str(archive)]).stdout.split())
    isa_sources = (REPO_ROOT / "kernels" / "portable" / "cpu" / "isa").rglob("*.cpp")
    assert members and not members & {f"{p.name}.o" for p in isa_sources}
    assert clone_symbols(archive) == []
    compiled = [p for p in (plain_build / "examples").rglob("*.o") if "add_lib" in str(p)]
    assert compiled, "add_lib compiled no kernel source of its own"
    assert [s for p in compiled for s in clone_symbols(p)] == []


def test_a_build_without_the_isa_room_runs_the_plain_row_tests(
    plain_build: Path, tmp_path: Path
) -> None:
    result = run_gtest(
        plain_build / "tests" / "native" / "kernels" / "kernel_row_tests", tmp_path / "rows.json"
    )
    for name in PLAIN_ROW_TESTS:
        result.assert_passed(name)
    assert {name: result.cases[name].result for name in ISA_ROW_TESTS} == dict.fromkeys(
        ISA_ROW_TESTS, "SKIPPED"
    )
    assert set(result.cases) == set(PLAIN_ROW_TESTS) | set(ISA_ROW_TESTS)


@pytest.mark.skipif(
    platform.machine() != "x86_64" or sys.platform != "linux", reason="x86-64 Linux's clones"
)
def test_an_operator_library_compiles_its_kernels_with_the_isa_room(native_build: Path) -> None:
    # add_lib compiles op_add.cpp itself, with the definitions Codegen.cmake reads from
    # KILN_PORTABLE_KERNEL_DEFINITIONS: KILN_PORTABLE_ISA=1 gives it the clones and microkernels.
    compiled = [p for p in (native_build / "examples").rglob("*.o") if "add_lib" in str(p)]
    assert compiled, "add_lib compiled no kernel source of its own"
    assert [s for p in compiled for s in clone_symbols(p)]
