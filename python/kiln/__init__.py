"""Kiln's Python API: call any registered operator on torch tensors, without copies; export a
module as a program (``kiln.export``) and load and run programs (``kiln.load``); use Kiln's custom
operators from PyTorch (``import kiln.torch_ops``, or ``kiln.register_torch_ops()``); run kernels
on several threads (``kiln.set_num_threads``). The code generator is ``kiln.codegen``
(``python -m kiln.codegen``).

``cmake_prefix_path`` is where the installed package keeps Kiln's CMake package, for C++ projects:
``cmake -DCMAKE_PREFIX_PATH=$(python -c 'import kiln; print(kiln.cmake_prefix_path)')`` and then
``find_package(Kiln)``.

Each name is imported on first use (PEP 562): importing kiln, or kiln.codegen, which CMake runs
before the extension kiln._C is built, loads neither torch nor the extension.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kiln._call import call_op
    from kiln._errors import ExportError, KilnError
    from kiln._export import export
    from kiln._program import MissingOperator, Program, ProgramLoadError, load
    from kiln._random import manual_seed
    from kiln._registry import (
        fallback_records,
        missing_operators,
        registered_operators,
        reset_fallback_stats,
    )
    from kiln._strided import reset_strided_copies, strided_copies
    from kiln._threads import get_num_threads, set_num_threads

    cmake_prefix_path: str

# Public name -> the module that defines it.
_DEFINED_IN = {
    "ExportError": "kiln._errors",
    "KilnError": "kiln._errors",
    "MissingOperator": "kiln._program",
    "Program": "kiln._program",
    "ProgramLoadError": "kiln._program",
    "call_op": "kiln._call",
    "export": "kiln._export",
    "fallback_records": "kiln._registry",
    "get_num_threads": "kiln._threads",
    "load": "kiln._program",
    "manual_seed": "kiln._random",
    "missing_operators": "kiln._registry",
    "registered_operators": "kiln._registry",
    "reset_fallback_stats": "kiln._registry",
    "reset_strided_copies": "kiln._strided",
    "set_num_threads": "kiln._threads",
    "strided_copies": "kiln._strided",
}


def __getattr__(name: str) -> Any:
    if name == "cmake_prefix_path":
        from kiln import _cmake_package

        value: Any = _cmake_package.find_prefix(__path__)
    elif name in _DEFINED_IN:
        value = getattr(importlib.import_module(_DEFINED_IN[name]), name)
    else:
        raise AttributeError(f"module 'kiln' has no attribute '{name}'")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def register_torch_ops(namespace: str = "kiln", shapes: Any = None) -> Any:
    """Registers the operators of ``namespace`` with torch.library; see kiln.torch_ops."""
    from kiln import torch_ops

    return torch_ops.register_torch_ops(namespace, shapes)


__all__ = [
    "ExportError",
    "KilnError",
    "MissingOperator",
    "Program",
    "ProgramLoadError",
    "call_op",
    "cmake_prefix_path",
    "export",
    "fallback_records",
    "get_num_threads",
    "load",
    "manual_seed",
    "missing_operators",
    "register_torch_ops",
    "registered_operators",
    "reset_fallback_stats",
    "reset_strided_copies",
    "set_num_threads",
    "strided_copies",
]
