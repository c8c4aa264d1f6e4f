"""Imports the sanitized kiln._C (built by tests/fuzz as python_module/_C<suffix>) in place of the
installed one, before any kiln module that reads it is imported.

kiln's package __init__ loads no extension, so the module can be put in sys.modules["kiln._C"]
(and on the package) first: every `from kiln import _C` then gets it, and kiln._manifest reads
the operator table beside it (kiln_all_ops.manifest.json of the fuzz operator library)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

MODULE_DIR_ENV = "KILN_SANITIZED_MODULE_DIR"


def module_path(directory: Path) -> Path:
    """The extension file in `directory` (python_module of the fuzz build tree)."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = directory / f"_C{suffix}"
        if path.is_file():
            return path
    raise FileNotFoundError(f"no _C extension in {directory}")


def install(directory: Path) -> ModuleType:
    """Imports the extension in `directory` as kiln._C; fails if kiln._C was imported before."""
    import kiln

    if "kiln._C" in sys.modules:
        raise RuntimeError("kiln._C was imported before the sanitized module could replace it")
    spec = importlib.util.spec_from_file_location("kiln._C", module_path(directory))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["kiln._C"] = module
    spec.loader.exec_module(module)
    kiln._C = module  # type: ignore[attr-defined]
    return module


def preloads(extension: Path) -> list[str]:
    """The libraries to preload into Python for the extension: the AddressSanitizer runtime it
    links (it must be the first library of the process), then the C++ runtime, which must be
    there when ASan starts so that its __cxa_throw interceptor finds the real one (torch throws
    C++ exceptions, which would otherwise stop the process with an ASan CHECK failure)."""
    listing = subprocess.run(["ldd", str(extension)], capture_output=True, text=True).stdout
    libraries = []
    for name in ("libasan", "libstdc++"):
        found = re.search(rf"^\s*{re.escape(name)}\S*\s+=>\s+(\S+)", listing, re.MULTILINE)
        if found is None:
            raise RuntimeError(f"{extension} does not link {name}:\n{listing}")
        libraries.append(found[1])
    return libraries


def sanitized_environment(directory: Path) -> dict[str, str]:
    """The environment a Python process needs to import the sanitized module: libasan preloaded,
    every report fatal, no leak check (CPython and torch keep their allocations at exit)."""
    env = dict(os.environ)
    env["LD_PRELOAD"] = " ".join(preloads(module_path(directory)))
    env["ASAN_OPTIONS"] = ":".join(
        [
            "detect_leaks=0",
            "abort_on_error=1",
            "halt_on_error=1",
            # A huge allocation that a kernel or torch asks for fails (an error to report), not
            # the process.
            "allocator_may_return_null=1",
            "detect_stack_use_after_return=0",
        ]
    )
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    env[MODULE_DIR_ENV] = str(directory)
    return env
