"""Where an installed kiln keeps its CMake package: ``kiln.cmake_prefix_path``.

The wheel carries Kiln's CMake package (libraries, headers, the CMake API and the codegen) inside
the kiln package, under ``lib/``, ``include/`` and ``share/``, so the package directory is a CMake
install prefix. An editable install has two package directories, the source tree's and the one
holding the built files; the prefix is the one with ``lib/cmake/Kiln``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

CONFIG_FILE = os.path.join("lib", "cmake", "Kiln", "KilnConfig.cmake")


def find_prefix(package_dirs: Sequence[str]) -> str:
    """The one of ``package_dirs`` (the kiln package's ``__path__``) that holds Kiln's CMake
    package; the first when none does (a source tree that was never installed)."""
    for directory in package_dirs:
        if os.path.isfile(os.path.join(directory, CONFIG_FILE)):
            return os.path.abspath(directory)
    return os.path.abspath(package_dirs[0])
