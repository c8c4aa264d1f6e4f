"""Every kernel in functions.yaml and custom_ops.yaml has a source defining it, and every kernel, on
every backend the session runs, is checked against torch by the op tests (differential_log records
which)."""

from __future__ import annotations

import re
from pathlib import Path

import differential_log
import pytest
import yaml

from kiln.codegen.selective_build.kernel_sources import defined_kernels, portable_source

REPO = Path(__file__).resolve().parents[2]


# Kiln's operator set: its ATen operators and its others (custom_ops.yaml).
YAML_FILES = ("functions.yaml", "custom_ops.yaml")


def kernel_entries() -> list[tuple[str, str, str]]:
    """(op, backend, kernel_name) for every kernel in functions.yaml and custom_ops.yaml."""
    entries = [
        entry for name in YAML_FILES for entry in yaml.safe_load((REPO / name).read_text()) or []
    ]
    found = []
    for entry in entries:
        op = entry.get("op") or entry["func"].split("(")[0]
        for kernel in entry.get("kernels") or []:
            found.append((op, kernel.get("backend", "portable"), kernel["kernel_name"]))
    return found


def defines(source: str, namespace: str, function: str) -> bool:
    """True when `source` opens `namespace` (nested or in one line) and defines `function`."""
    opened = {
        part
        for name in re.findall(r"namespace\s+([\w:]+)\s*\{", source)
        for part in name.split("::")
    }
    opens = all(part in opened for part in namespace.split("::"))
    return opens and function in defined_kernels(source)


ENTRIES = kernel_entries()


def test_functions_yaml_has_kernels() -> None:
    assert ENTRIES, "functions.yaml and custom_ops.yaml list no kernels"


@pytest.mark.parametrize(("op", "backend", "kernel_name"), ENTRIES)
def test_kernel_source_defines_kernel(op: str, backend: str, kernel_name: str) -> None:
    """A portable kernel is defined in its operator's file (portable_source, the rule the codegen
    and the diagnostics use); an Ascend kernel in a source of its backend."""
    namespace, function = kernel_name.rsplit("::", 1)
    native = f"{namespace}::native"  # the codegen binds ns::f to ns::native::f
    if backend == "portable":
        sources = [REPO / portable_source(op)]
    else:
        sources = sorted((REPO / "kernels" / backend).rglob("*.cpp"))
    matches = [p for p in sources if p.exists() and defines(p.read_text(), native, function)]
    assert matches, f"{op} ({backend}) binds {native}::{function}, but " + (
        f"{portable_source(op)} does not define it"
        if backend == "portable"
        else f"no .cpp under kernels/{backend} defines it"
    )


def test_operator_sources_define_only_their_operator() -> None:
    """kernels/portable/cpu/op_<name>.cpp defines the portable kernels of <name> and no other
    operator's, so the file name is the whole answer to where a kernel lives."""
    owner = {
        kernel_name.rsplit("::", 1)[1]: portable_source(op)
        for op, backend, kernel_name in ENTRIES
        if backend == "portable"
    }
    cpu = REPO / "kernels" / "portable" / "cpu"
    wrong = []
    for path in sorted(cpu.rglob("*.cpp")):
        where = path.relative_to(REPO).as_posix()
        if path.name.startswith("op_") and where not in owner.values():
            wrong.append(
                f"{where}: no operator in functions.yaml or custom_ops.yaml is named "
                f"{path.stem[3:]!r}"
            )
        for function in defined_kernels(path.read_text()) & owner.keys():
            if owner[function] != where:
                wrong.append(f"{where} defines {function}, which belongs in {owner[function]}")
    assert not wrong, "\n".join(wrong)


def test_every_portable_source_is_where_the_build_globs() -> None:
    # kernels/portable/CMakeLists.txt builds cpu/op_*.cpp, cpu/util/<purpose>/*.cpp and (with
    # KILN_PORTABLE_ISA) cpu/isa/*.cpp and cpu/isa/<arch>/*.cpp; a source anywhere else would only
    # show up as an undefined symbol when a library links it.
    cpu = REPO / "kernels" / "portable" / "cpu"
    stray = [
        p.relative_to(cpu).as_posix()
        for p in cpu.rglob("*.cpp")
        if not (p.parent == cpu and p.name.startswith("op_"))
        and not (p.parent.parent == cpu / "util")
        and not (p.parent == cpu / "isa" or p.parent.parent == cpu / "isa")
    ]
    assert not stray, f"move {stray} to cpu/op_<name>.cpp, cpu/util/<purpose>/ or cpu/isa/[<arch>/]"


def declared_kernels(backends: tuple[str, ...]) -> set[tuple[str, str]]:
    """(qualified op, backend) for every kernel that functions.yaml and custom_ops.yaml declare on
    `backends`; on "aten", every op (libtorch serves the ATen ones, kernels/aten the others)."""
    declared = {(differential_log.qualified(op), backend) for op, backend, _ in ENTRIES}
    if "aten" in backends:
        declared |= {(op, "aten") for op, _ in declared}
    return {(op, backend) for op, backend in declared if backend in backends}


def test_every_kernel_is_checked_against_torch() -> None:
    """Runs after every op test (conftest.py): each declared kernel wrote a result that
    a differential check compared with torch's."""
    selection = differential_log.SELECTION
    if not selection.whole:
        pytest.skip(f"needs the whole of tests/ops to judge coverage: {selection.reason}")
    missing = sorted(declared_kernels(selection.backends) - differential_log.CHECKED)
    assert not missing, (
        f"{len(missing)} kernels never had a result compared with torch's (op_compare.check_op "
        "or another differential check on the backend), as (op, backend):\n"
        + "\n".join(f"  {op} on {backend}" for op, backend in missing)
    )
