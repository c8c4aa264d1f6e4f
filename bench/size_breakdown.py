"""Where a binary's bytes go: its symbols (nm) grouped by the source file that defines them.

The owner of a symbol is found in the build tree's object files: op_add.cpp, util/linalg/gemm.cpp,
runtime/core, generated (RegisterKernels.cpp ...), or `other` for what no object defines (libc,
libstdc++, the C runtime). Multiversioned clones (`.arch_x86_64_v3`, `.arch_x86_64_v4`, with
their `.resolver`) are counted apart, so their cost is visible next to the baseline code.
"""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

_CLONE = re.compile(r"\.(arch_[a-z0-9_]+|resolver)$")
# The archive's and a library's copies: cpu/op_<name>, util/<purpose>/<name>, isa/[<arch>/]<name>.
_PORTABLE = re.compile(r"/cpu/((?:util/[^/]+/|isa/(?:[^/]+/)?)?[^/]+)\.cpp\.o$")
# A dtype-selective library's copy is named by its path under cpu/ with _ for / (util_linalg_gemm).
_DTYPE_COPY = re.compile(r"dtype_selected/(.+)\.cpp\.o$")


@dataclass(frozen=True)
class Symbol:
    name: str  # mangled, as the linker sees it
    size: int
    section: str  # nm's type letter: t/T code, r/R read-only data, d/D/b/B data


@dataclass(frozen=True)
class Group:
    name: str
    size: int
    clone_size: int  # of which in multiversioned clones and their resolvers
    symbols: int


def _nm(path: Path) -> list[Symbol]:
    """Defined symbols with a size (nm --print-size)."""
    result = subprocess.run(
        ["nm", "--defined-only", "--print-size", str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    symbols = []
    for line in result.stdout.splitlines():
        fields = line.split(maxsplit=3)
        if len(fields) == 4:
            symbols.append(Symbol(fields[3], int(fields[1], 16), fields[2]))
    return symbols


def _source_group(object_file: Path) -> str:
    """The source an object file compiles, as a group name."""
    text = object_file.as_posix()
    if match := _PORTABLE.search(text):
        return f"{match.group(1)}.cpp"
    if match := _DTYPE_COPY.search(text):
        return f"{match.group(1)}.cpp"
    if "/runtime/CMakeFiles/" in text:  # runtime/CMakeFiles/<target>.dir/<layer>/<file>.o
        layer = text.split(".dir/", 1)[1].split("/", 1)[0]
        return f"runtime/{layer}"
    return "generated/app"


def _owners(build: Path) -> dict[str, str]:
    """Mangled symbol -> group of the first object file (in path order) that defines it."""
    owners: dict[str, str] = {}
    for object_file in sorted(build.rglob("*.o")):
        group = _source_group(object_file)
        for symbol in _nm(object_file):
            owners.setdefault(symbol.name, group)
    return owners


def _demangle(names: list[str]) -> list[str]:
    result = subprocess.run(
        ["c++filt"], input="\n".join(names), check=True, capture_output=True, text=True
    )
    return result.stdout.splitlines()


def breakdown(binary: Path, build: Path) -> tuple[list[Group], list[tuple[Symbol, str]]]:
    """Groups by size, and every symbol with its group, largest first."""
    owners = _owners(build)
    symbols = sorted(_nm(binary), key=lambda s: -s.size)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    owned = []
    for symbol in symbols:
        group = owners.get(symbol.name, "other (libc, libstdc++, crt)")
        total = totals[group]
        total[0] += symbol.size
        total[1] += symbol.size if _CLONE.search(symbol.name) else 0
        total[2] += 1
        owned.append((symbol, group))
    groups = [Group(name, *values) for name, values in totals.items()]
    return sorted(groups, key=lambda g: -g.size), owned


def sections(binary: Path) -> list[tuple[str, int]]:
    """The allocated sections of the binary and their sizes (size -A), largest first."""
    result = subprocess.run(["size", "-A", str(binary)], check=True, capture_output=True, text=True)
    found = []
    for line in result.stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0].startswith(".") and fields[2].isdigit():
            if int(fields[2]) != 0:  # an address: loaded
                found.append((fields[0], int(fields[1])))
    return sorted(found, key=lambda item: -item[1])


def report(binary: Path, build: Path, top: int) -> str:
    groups, owned = breakdown(binary, build)
    total = sum(g.size for g in groups)
    clones = sum(g.clone_size for g in groups)
    lines = [
        f"{binary.name}: {total / 1024:.1f} KiB in sized symbols, {clones / 1024:.1f} KiB clones"
    ]
    lines.append("sections:")
    lines += [f"  {name:24} {size / 1024:9.1f} KiB" for name, size in sections(binary)]
    lines.append(f"{'by source':40} {'KiB':>9} {'clones':>9} {'symbols':>8}")
    for group in groups:
        lines.append(
            f"  {group.name:38} {group.size / 1024:9.1f} {group.clone_size / 1024:9.1f} "
            f"{group.symbols:8}"
        )
    lines.append(f"largest {top} symbols:")
    shown = owned[:top]
    for (symbol, group), name in zip(shown, _demangle([s.name for s, _ in shown]), strict=True):
        lines.append(f"  {symbol.size:8} {group:28} {name[:150]}")
    return "\n".join(lines)
