"""The kernel backends, read from ``runtime/kernel/backends.def``: the one list the runtime, the
codegen and CMake share (``KILN_BACKEND(Enumerator, name)`` lines, in ``kiln::Backend`` order).

In a source checkout (and an editable install) the file is read from the source tree. A wheel or
a CMake install of the codegen carries a copy beside this module instead: python/CMakeLists.txt
installs it into the wheel's ``kiln/codegen/model/`` (COMPONENT python), cmake/KilnInstall.cmake
into the installed codegen.
"""

from __future__ import annotations

import re
from pathlib import Path

_LINE = re.compile(r"KILN_BACKEND\(\s*([A-Za-z_]\w*)\s*,\s*([a-z_][a-z0-9_]*)\s*\)\s*")


def _list_file() -> Path:
    here = Path(__file__).resolve().parent
    copy = here / "backends.def"  # wheel or CMake install
    source = here.parents[3] / "runtime" / "kernel" / "backends.def"  # source checkout
    for candidate in (copy, source):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"Kiln's backend list is missing (looked for {copy} and {source}); reinstall kiln or run "
        "the codegen from a Kiln source tree"
    )


def _read(path: Path) -> dict[str, str]:
    """Backend name -> enumerator, in file order; comments and blank lines are skipped."""
    backends: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("//"):
            continue
        match = _LINE.fullmatch(text)
        if match is None:
            raise ValueError(f"{path}:{number}: expected 'KILN_BACKEND(Enumerator, name)'")
        backends[match.group(2)] = match.group(1)
    if not backends:
        raise ValueError(f"{path}: lists no backend")
    return backends


LIST_FILE = _list_file()
_ENUMERATORS = _read(LIST_FILE)

# Backend names; the index of each is its kiln::Backend value.
BACKENDS: tuple[str, ...] = tuple(_ENUMERATORS)
# Backend name -> its C++ enumerator, as generated kernel tables spell it.
BACKEND_ENUMS: dict[str, str] = {name: f"kiln::Backend::{e}" for name, e in _ENUMERATORS.items()}
