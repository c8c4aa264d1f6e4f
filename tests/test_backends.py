"""One backend list, runtime/kernel/backends.def: the runtime (through kiln._C), the codegen and
CMake each read it, so they agree on the names and their order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from buildtools import REPO_ROOT, run
from kiln import _C
from kiln.codegen.model import backends

LIST_FILE = REPO_ROOT / "runtime/kernel/backends.def"


def _entries() -> list[tuple[str, str]]:
    """(enumerator, name) per KILN_BACKEND line, in file order."""
    return re.findall(r"^KILN_BACKEND\((\w+), (\w+)\)$", LIST_FILE.read_text(), re.MULTILINE)


def _names() -> list[str]:
    return [name for _, name in _entries()]


def _cmake_read(tmp_path: Path, list_file: Path) -> tuple[int, str]:
    script = tmp_path / "read_backends.cmake"
    script.write_text(
        f'include("{REPO_ROOT / "cmake/KilnBackends.cmake"}")\n'
        f'kiln_read_backends("{list_file}" names)\n'
        'message(STATUS "backends=${names}")\n'
    )
    result = run(["cmake", "-P", str(script)], check=False)
    return result.returncode, result.stdout + result.stderr


def test_the_list_has_portable_and_ascend() -> None:
    assert _entries()[:2] == [("Portable", "portable"), ("Ascend", "ascend")]


def test_codegen_reads_the_list() -> None:
    assert backends.LIST_FILE == LIST_FILE  # a checkout reads the source tree's file
    assert list(backends.BACKENDS) == _names()
    assert backends.BACKEND_ENUMS == {n: f"kiln::Backend::{e}" for e, n in _entries()}


def test_extension_reports_the_list() -> None:
    assert _C.backends() == _names()
    with pytest.raises(ValueError, match="unknown backend 'cuda'; use 'portable' or 'ascend'"):
        _C.missing_operators([("aten::add.out", "")], ["cuda"])


def test_cmake_reads_the_list(tmp_path: Path) -> None:
    status, output = _cmake_read(tmp_path, LIST_FILE)
    assert status == 0, output
    assert f"backends={';'.join(_names())}" in output


def test_readers_refuse_a_malformed_list(tmp_path: Path) -> None:
    bad = tmp_path / "backends.def"
    bad.write_text("// list\nKILN_BACKEND(Portable, portable)\nKILN_BACKEND(Cuda)\n")
    status, output = _cmake_read(tmp_path, bad)
    assert status != 0
    assert "'KILN_BACKEND(Cuda)' is not 'KILN_BACKEND(Enumerator, name)'" in output
    with pytest.raises(ValueError, match=r"backends.def:3: expected 'KILN_BACKEND"):
        backends._read(bad)
