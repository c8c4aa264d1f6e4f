"""Session-wide fixtures: the native CMake build that tests drive, built once and reused."""

from __future__ import annotations

from pathlib import Path

import pytest

from buildtools import BUILD_ROOT, REPO_ROOT, cmake_build, cmake_configure


@pytest.fixture(scope="session")
def native_build() -> Path:
    """Kiln's own build with examples and native tests (incremental across runs)."""
    build = BUILD_ROOT / "pytest-native"
    cmake_configure(REPO_ROOT, build, "-DKILN_BUILD_TESTS=ON", "-DKILN_BUILD_EXAMPLES=ON")
    cmake_build(build)
    return build
