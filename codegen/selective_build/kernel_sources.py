"""Which portable kernel source defines which kernel, for a dtype-selective build.

A library built with --dtype-selective-build compiles the portable kernel sources itself, each
with the dtype mask of the selected operators it defines: the sources come from a list file that
CMake writes (one path per line), and a kernel is found by its definition
``<name>(KernelRuntimeContext& ...`` in a source.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from codegen.errors import UserError
from codegen.library import Library

PORTABLE_NAMESPACE = "kiln::portable::native"
_DEFINITION = re.compile(r"\b(\w+)\s*\(\s*(?:kiln::)?KernelRuntimeContext\s*&")


@dataclass(frozen=True)
class CompiledSource:
    """One kernel source as a dtype-selective library compiles it."""

    path: str
    kernels: tuple[str, ...]  # the portable kernel functions it defines (none: shared util code)
    selected: bool  # False: it defines kernels, none of them selected, so nothing is compiled
    dtype_mask: int | None  # None: every dtype

    @property
    def stem(self) -> str:
        """A unique file name for its wrapper: ``op_add`` or ``util_gemm``."""
        parent = os.path.basename(os.path.dirname(self.path))
        name = os.path.splitext(os.path.basename(self.path))[0]
        return name if parent == "cpu" else f"{parent}_{name}"


def read_source_list(list_file: str) -> list[str]:
    with open(list_file, encoding="utf-8") as stream:
        paths = [line.strip() for line in stream if line.strip()]
    if not paths:
        raise UserError(list_file, None, "the kernel source list is empty", "list the sources")
    return paths


def _definitions(paths: list[str]) -> dict[str, str]:
    """Function name -> the source defining it, for every kernel-shaped definition."""
    found: dict[str, str] = {}
    for path in paths:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        for name in _DEFINITION.findall(text):
            found.setdefault(name, path)
    return found


def _union(masks: list[int | None]) -> int | None:
    total = 0
    for mask in masks:
        if mask is None:
            return None
        total |= mask
    return total


def _portable_kernels(library: Library) -> set[str]:
    """Every portable kernel function the YAML files name, selected or not."""
    return {
        kernel.function
        for yaml_file in library.files
        for op in yaml_file.ops
        for kernel in op.kernels
        if kernel.namespace == PORTABLE_NAMESPACE
    }


def plan_sources(library: Library, list_file: str) -> list[CompiledSource]:
    """The sources in ``list_file`` with what each compiles for ``library``: a kernel source with
    its selected operators' dtype mask (nothing when none is selected), shared util code with the
    union of all the masks."""
    paths = read_source_list(list_file)
    all_kernels = _portable_kernels(library)
    defined = _definitions(paths)
    masks: dict[str, list[int | None]] = {}
    for op in library.ops:
        for kernel in op.kernels:
            if kernel.backend != "portable" or kernel.namespace != PORTABLE_NAMESPACE:
                continue
            path = defined.get(kernel.function)
            if path is None:
                raise UserError(
                    list_file,
                    None,
                    f"{op.name}: its portable kernel {kernel.cpp_function} is not defined in "
                    f"any of the {len(paths)} kernel sources listed",
                    f"define it in a source of kiln_portable_kernels (declared at {kernel.origin})",
                )
            masks.setdefault(path, []).append(op.dtype_mask)
    util_mask = _union([mask for group in masks.values() for mask in group])
    sources = []
    for path in paths:
        kernels = tuple(sorted(name for name, where in defined.items() if where == path))
        kernels = tuple(name for name in kernels if name in all_kernels)
        if not kernels:
            sources.append(CompiledSource(path, (), bool(masks), util_mask))
        elif path in masks:
            sources.append(CompiledSource(path, kernels, True, _union(masks[path])))
        else:
            sources.append(CompiledSource(path, kernels, False, 0))
    return sources
