"""Every op in functions.yaml has a kernel source defining its kernel and a test naming it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parent


def kernel_entries() -> list[tuple[str, str, str]]:
    """(op, backend, kernel_name) for every kernel in functions.yaml."""
    entries = yaml.safe_load((REPO / "functions.yaml").read_text()) or []
    found = []
    for entry in entries:
        op = entry.get("op") or entry["func"].split("(")[0]
        for kernel in entry.get("kernels") or []:
            found.append((op, kernel.get("backend", "portable"), kernel["kernel_name"]))
    return found


def qualified(op: str) -> str:
    return op if "::" in op else f"aten::{op}"


def defines(source: str, namespace: str, function: str) -> bool:
    """True when `source` opens `namespace` (nested or in one line) and defines `function`."""
    opened = {
        part
        for name in re.findall(r"namespace\s+([\w:]+)\s*\{", source)
        for part in name.split("::")
    }
    opens = all(part in opened for part in namespace.split("::"))
    definition = re.search(rf"[&*\s]{re.escape(function)}\s*\([^;]*\)\s*\{{", source, re.S)
    return opens and definition is not None


ENTRIES = kernel_entries()


def test_functions_yaml_has_kernels() -> None:
    assert ENTRIES, "functions.yaml lists no kernels"


@pytest.mark.parametrize(("op", "backend", "kernel_name"), ENTRIES)
def test_kernel_source_defines_kernel(op: str, backend: str, kernel_name: str) -> None:
    namespace, function = kernel_name.rsplit("::", 1)
    native = f"{namespace}::native"  # the codegen binds ns::f to ns::native::f
    root = REPO / "kernels" / backend
    sources = sorted(root.rglob("*.cpp")) if root.is_dir() else []
    matches = [p for p in sources if defines(p.read_text(), native, function)]
    assert matches, (
        f"{op} ({backend}) binds {native}::{function}, but no .cpp under "
        f"{root.relative_to(REPO)} defines it"
    )


@pytest.mark.parametrize("op", sorted({op for op, _, _ in ENTRIES}))
def test_op_has_a_test(op: str) -> None:
    name = qualified(op)
    tests = [p for p in TESTS.glob("test_*.py") if p.name != Path(__file__).name]
    assert any(f'"{name}"' in p.read_text() for p in tests), (
        f"no test in {TESTS.relative_to(REPO)} calls {name}"
    )


def test_cmake_lists_every_portable_source() -> None:
    # kernels/portable/sources/*.cmake name the sources explicitly; a file left out would only
    # show up as an undefined kernel when a library links it.
    lists = sorted((REPO / "kernels" / "portable" / "sources").glob("*.cmake"))
    cmake = "\n".join(p.read_text() for p in lists)
    cpu = REPO / "kernels" / "portable" / "cpu"
    sources = sorted(p.relative_to(cpu.parent).as_posix() for p in cpu.rglob("*.cpp"))
    missing = [s for s in sources if s not in cmake]
    assert not missing, f"add {missing} to a list in kernels/portable/sources/"
