"""The ATen-mode extension, kiln._C_aten: Kiln's generated code on libtorch's kernels.

It comes from a CMake build with -DKILN_ATEN_MODE=ON -DKILN_BUILD_PYTHON=ON (not from pip
install). It is imported from the kiln package when it was installed there, else from the
directory named by $KILN_ATEN_EXTENSION_DIR (e.g. build/aten/python).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from kiln._errors import KilnError

MODULE = "kiln._C_aten"
ENV_DIR = "KILN_ATEN_EXTENSION_DIR"

_HOW = (
    "build it with `cmake -S . -B build/aten -G Ninja -DKILN_ATEN_MODE=ON -DKILN_BUILD_PYTHON=ON "
    f"&& cmake --build build/aten --target _C_aten` and set {ENV_DIR}=build/aten/python"
)


def _from_directory(directory: Path) -> ModuleType | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = directory / f"_C_aten{suffix}"
        if path.is_file():
            spec = importlib.util.spec_from_file_location(MODULE, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[MODULE] = module
            spec.loader.exec_module(module)
            return module
    return None


# The last kiln.manual_seed value, applied to the extension when it loads later.
_random_seed: int | None = None


def set_random_seed(seed: int) -> None:
    """Seeds the generator the extension's kernels draw from (libtorch's default CPU one), now
    if it is loaded, else when it loads."""
    global _random_seed
    _random_seed = seed
    if MODULE in sys.modules:
        sys.modules[MODULE].set_random_seed(seed)


@lru_cache(maxsize=1)
def extension() -> ModuleType:
    """kiln._C_aten; KilnError (NotSupported) saying how to build it when it is not found."""
    module = _load()
    if _random_seed is not None:
        module.set_random_seed(_random_seed)
    return module


def _load() -> ModuleType:
    if importlib.util.find_spec(MODULE) is not None:
        return importlib.import_module(MODULE)
    directory = os.environ.get(ENV_DIR)
    if directory:
        module = _from_directory(Path(directory))
        if module is not None:
            return module
        raise KilnError(f"no _C_aten extension in {ENV_DIR}={directory}; {_HOW}", "NotSupported")
    raise KilnError(f"backend 'aten' needs Kiln's ATen-mode extension; {_HOW}", "NotSupported")
