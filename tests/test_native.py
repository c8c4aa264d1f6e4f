"""Native builds driven from pytest: runtime unit tests, the add_lib demo, a custom op."""

from __future__ import annotations

import re
from pathlib import Path

from buildtools import run


def test_runtime_unit_tests_pass(native_build: Path) -> None:
    result = run([str(native_build / "tests/native/runtime_tests")])
    summary = re.search(r"^(\d+) passed, (\d+) failed$", result.stdout, re.MULTILINE)
    assert summary is not None, result.stdout
    assert int(summary.group(1)) > 50 and summary.group(2) == "0"


def test_add_lib_demo_adds_through_the_registry(native_build: Path) -> None:
    result = run([str(native_build / "examples/add_lib/add_lib_demo")])
    # a = [[1,2,3],[4,5,6]], b = [10,20,30] broadcast, alpha = 2
    assert "[21, 42, 63]" in result.stdout
    assert "[24, 45, 66]" in result.stdout
    assert "portable kernel (functions.yaml:" in result.stdout


def test_custom_op_through_cmake_api(native_build: Path) -> None:
    result = run([str(native_build / "tests/native/custom_op/custom_op_demo")])
    lines = result.stdout.splitlines()
    assert "boxed: 6 12 18" in lines
    assert "typed: 21 42 63" in lines
    assert "mul: 10 40 90" in lines
    assert (
        "bad: InvalidProgram: kiln_custom::scaled_add.out: argument 1 (b) expected Tensor, got Int"
        in lines
    )


def test_dtype_selective_library_runs_its_dtypes_and_refuses_others(native_build: Path) -> None:
    result = run([str(native_build / "tests/native/dtype_selective/dtype_selective_demo")])
    lines = result.stdout.splitlines()
    assert "float add: Ok 11 22 33" in lines
    assert (
        "double add: NotSupported: aten::add.out: argument 0 (self) has dtype Double, which this "
        "library's dtype selection leaves out (selected: Float); add the dtype to the selection "
        "(et_kernel_metadata, or a model that uses it) or build the library without "
        "DTYPE_SELECTIVE_BUILD" in lines
    )
    assert any(
        line.startswith("typed double mm: NotSupported: mm: this library's dtype selection")
        for line in lines
    )
    # Half's dedicated loops compiled away; the general converting path still computes it.
    assert "typed half add: Ok 3 4 -6" in lines
