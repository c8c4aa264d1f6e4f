"""Kiln's Python API: call any registered operator on torch tensors, without copies; export a
module as a program (``kiln.export``) and load and run programs (``kiln.load``); use Kiln's custom
operators from PyTorch (``import kiln.torch_ops``, or ``kiln.register_torch_ops()``); run kernels
on several threads (``kiln.set_num_threads``).

``cmake_prefix_path`` is where the installed package keeps Kiln's CMake package, for C++ projects:
``cmake -DCMAKE_PREFIX_PATH=$(python -c 'import kiln; print(kiln.cmake_prefix_path)')`` and then
``find_package(Kiln)``.
"""

from typing import Any

from kiln import _cmake_package
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
from kiln._threads import get_num_threads, set_num_threads

cmake_prefix_path: str = _cmake_package.find_prefix(__path__)


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
    "set_num_threads",
]
