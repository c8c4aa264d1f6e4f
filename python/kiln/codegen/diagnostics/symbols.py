"""Kernel symbols a built library defines (read with ``nm``), to find kernels that are declared
but never defined."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kiln.codegen.errors import UserError


def defined_symbols(libraries: list[str]) -> set[str]:
    """Demangled names of the functions defined in the given archives, objects or binaries."""
    symbols: set[str] = set()
    for library in libraries:
        if not Path(library).exists():
            raise UserError(
                library, None, "no such file", "pass built kernel libraries (.a/.so/.o)"
            )
        try:
            listing = subprocess.run(
                ["nm", "-C", "--defined-only", library], capture_output=True, text=True, check=False
            )
        except FileNotFoundError:
            raise UserError(
                "--kernel-libs", None, "nm is not installed", "install binutils"
            ) from None
        if listing.returncode != 0:
            raise UserError(
                library,
                None,
                f"nm cannot read it: {listing.stderr.strip()}",
                "pass a built library",
            )
        for line in listing.stdout.splitlines():
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[1] in ("T", "t", "W", "w"):
                symbols.add(parts[2])
    return symbols


def names_function(symbol: str, function: str) -> bool:
    """Whether demangled ``symbol`` is a function called ``function``, in any namespace."""
    head = symbol.split("(")[0]
    return head == function or head.endswith(f"::{function}")


def defines(symbols: set[str], cpp_function: str) -> bool:
    """Whether ``symbols`` define the qualified ``cpp_function``."""
    return any(s.split("(")[0] == cpp_function for s in symbols)
