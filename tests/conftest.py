"""Session-wide fixtures: the native CMake builds that tests drive, built once and reused."""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import settings

from buildtools import BUILD_ROOT, REPO_ROOT, cmake_build, cmake_configure

# CI replays a fixed sequence of examples (a red CI run is always reproducible); local runs keep
# exploring new random examples. No deadlines: build fixtures and shared machines vary in speed.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def native_build() -> Path:
    """Kiln's own build with examples and native tests (incremental across runs)."""
    build = BUILD_ROOT / "pytest-native"
    cmake_configure(REPO_ROOT, build, "-DKILN_BUILD_TESTS=ON", "-DKILN_BUILD_EXAMPLES=ON")
    cmake_build(build)
    return build


@pytest.fixture(scope="session")
def aten_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same checkout built in ATen mode (libtorch's tensors and kernels): examples, native
    tests and the kiln._C_aten extension, in its own tree (incremental across runs). The wall
    time of the last configure + build is written to aten-build-seconds.txt in the tree.

    kiln.call_op(backend="aten") loads a private copy of the extension (KILN_ATEN_EXTENSION_DIR),
    so a session building the tree meanwhile cannot change the file under this one."""
    build = BUILD_ROOT / "pytest-aten"
    BUILD_ROOT.mkdir(exist_ok=True)
    # Test sessions running side by side share the tree; one builds at a time.
    with open(BUILD_ROOT / "pytest-aten.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        start = time.monotonic()
        cmake_configure(
            REPO_ROOT,
            build,
            "-DKILN_ATEN_MODE=ON",
            "-DKILN_BUILD_TESTS=ON",
            "-DKILN_BUILD_EXAMPLES=ON",
            "-DKILN_BUILD_PYTHON=ON",
        )
        cmake_build(build)
        (build / "aten-build-seconds.txt").write_text(f"{time.monotonic() - start:.1f}\n")
        private = tmp_path_factory.mktemp("kiln-aten-extension")
        for extension in (build / "python").glob("_C_aten*"):
            shutil.copy2(extension, private)
    os.environ["KILN_ATEN_EXTENSION_DIR"] = str(private)
    return build
