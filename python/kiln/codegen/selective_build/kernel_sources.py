"""Where a portable kernel is defined, and what each portable source compiles in a
dtype-selective build.

The one rule for finding a kernel: the portable kernels of operator ``<ns>::<name>.<overload>``
(every overload of ``name``) are defined in ``kernels/portable/cpu/op_<name>.cpp``, and that file
defines no other operator's kernels. The dtype-selective build, the diagnostics and the tests all
ask ``portable_source`` instead of searching.

A library built with --dtype-selective-build compiles the portable kernel sources itself: the
sources come from a list file that CMake writes (one path per line). An ``op_<name>.cpp`` is
compiled with the dtype mask of its selected overloads, or not at all when none is selected; any
other source is shared code and gets the union of the masks.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from kiln.codegen.errors import UserError
from kiln.codegen.library import Library, LibraryOp
from kiln.codegen.model.entries import KernelEntry

PORTABLE_NAMESPACE = "kiln::portable::native"
PORTABLE_SOURCE_DIR = "kernels/portable/cpu"
_DEFINITION = re.compile(r"\b(\w+)\s*\(\s*(?:kiln::)?KernelRuntimeContext\s*&")


def portable_source(op_name: str) -> str:
    """The file defining the portable kernels of ``op_name`` (``aten::fmod.Scalar_out`` or
    ``fmod.Scalar_out``), relative to the repository root: ``kernels/portable/cpu/op_fmod.cpp``.
    An in-place variant belongs to its operator, as in ATen's naming: ``aten::copy_`` lives in
    ``op_copy.cpp`` (a dunder name such as ``__and__`` is not in place)."""
    base = op_name.rsplit("::", 1)[-1].split(".", 1)[0]
    if base.endswith("_") and not base.endswith("__"):
        base = base[:-1]
    return f"{PORTABLE_SOURCE_DIR}/op_{base}.cpp"


def defined_kernels(source_text: str) -> set[str]:
    """Names of the functions a source defines with a kernel's signature."""
    return set(_DEFINITION.findall(source_text))


@dataclass(frozen=True)
class CompiledSource:
    """One kernel source as a dtype-selective library compiles it."""

    path: str
    kernels: tuple[str, ...]  # the selected portable kernel functions it defines (none: util code)
    selected: bool  # False: an operator source none of whose kernels is selected: not compiled
    dtype_mask: int | None  # None: every dtype

    @property
    def stem(self) -> str:
        """A unique file name for its wrapper: its path under ``cpu/`` with ``_`` for ``/``
        (``op_add``, ``util_linalg_gemm``)."""
        under_cpu = self.path.replace(os.sep, "/").rsplit("/cpu/", 1)[-1]
        return os.path.splitext(under_cpu)[0].replace("/", "_")


def read_source_list(list_file: str) -> list[str]:
    with open(list_file, encoding="utf-8") as stream:
        paths = [line.strip() for line in stream if line.strip()]
    if not paths:
        raise UserError(list_file, None, "the kernel source list is empty", "list the sources")
    return paths


def _is_operator_source(path: str) -> bool:
    return os.path.basename(path).startswith("op_")


def _union(masks: list[int | None]) -> int | None:
    total = 0
    for mask in masks:
        if mask is None:
            return None
        total |= mask
    return total


def _source_of(op: LibraryOp, kernel: KernelEntry, paths: dict[str, str], list_file: str) -> str:
    """The listed path of the source defining ``op``'s portable ``kernel``, checked."""
    expected = portable_source(op.name)
    what = f"{op.name}: its portable kernel {kernel.cpp_function} (declared at {kernel.origin})"
    path = paths.get(os.path.basename(expected))
    if path is None:
        raise UserError(
            list_file,
            None,
            f"{what} belongs in {expected}, which is not among the {len(paths)} operator "
            "sources listed",
            f"add {expected} to kiln_portable_kernels' sources",
        )
    with open(path, encoding="utf-8") as stream:
        if kernel.function not in defined_kernels(stream.read()):
            raise UserError(
                path,
                None,
                f"{what} is not defined here",
                f"define it in {expected}: the portable kernels of an operator live in "
                "op_<operator name>.cpp",
            )
    return path


def plan_sources(library: Library, list_file: str) -> list[CompiledSource]:
    """The sources in ``list_file`` with what each compiles for ``library``: an operator source
    with its selected overloads' dtype mask (nothing when none is selected), shared code with
    the union of all the masks."""
    listed = read_source_list(list_file)
    operator_paths = {os.path.basename(p): p for p in listed if _is_operator_source(p)}
    kernels: dict[str, list[str]] = {}
    masks: dict[str, list[int | None]] = {}
    for op in library.ops:
        for kernel in op.kernels:
            if kernel.backend != "portable" or kernel.namespace != PORTABLE_NAMESPACE:
                continue
            path = _source_of(op, kernel, operator_paths, list_file)
            kernels.setdefault(path, []).append(kernel.function)
            masks.setdefault(path, []).append(op.dtype_mask)
    util_mask = _union([mask for group in masks.values() for mask in group])
    sources = []
    for path in listed:
        if not _is_operator_source(path):
            sources.append(CompiledSource(path, (), bool(masks), util_mask))
        elif path in masks:
            selected = tuple(sorted(set(kernels[path])))
            sources.append(CompiledSource(path, selected, True, _union(masks[path])))
        else:
            sources.append(CompiledSource(path, (), False, 0))
    return sources


_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
PORTABLE_INCLUDE_PREFIX = "kernels/portable/"


@dataclass(frozen=True)
class SourcePlan:
    """What a library compiles of the portable kernel sources, and the files that decided it."""

    sources: tuple[str, ...]  # in the order listed
    read: tuple[str, ...]  # the kernel sources and headers scanned: edit one, plan again


def _includes(path: str) -> list[str]:
    """The portable kernel headers ``path`` includes (the runtime's never include them)."""
    with open(path, encoding="utf-8") as stream:
        names = _INCLUDE.findall(stream.read())
    return [name for name in names if name.startswith(PORTABLE_INCLUDE_PREFIX)]


def _find_header(include: str, include_dirs: list[str]) -> str | None:
    for directory in include_dirs:
        candidate = os.path.join(directory, include)
        if os.path.isfile(candidate):
            return candidate
    return None


def needed_sources(
    op_names: list[str], listed: list[str], kernel_dir: str, include_dirs: list[str]
) -> SourcePlan:
    """The sources in ``listed`` a library selecting ``op_names`` must compile: the
    ``op_<name>.cpp`` of each selected operator that has one, and the shared code they reach
    through the ``#include`` graph: a header ``<x>.h`` whose ``<x>.cpp`` is listed brings that
    source in, and both are followed in turn. ``listed`` paths lie under ``kernel_dir`` (the
    directory included as ``kernels/portable``); headers are looked up in ``include_dirs``.
    Operators without a listed source (a user's own kernels) add nothing."""
    by_include_name = {}
    for listed_path in listed:
        relative = os.path.relpath(listed_path, kernel_dir).replace(os.sep, "/")
        by_include_name[f"{PORTABLE_INCLUDE_PREFIX}{relative}"] = listed_path
    operator_paths = {os.path.basename(p): p for p in listed if _is_operator_source(p)}
    needed: set[str] = set()
    pending: list[str] = []
    for name in op_names:
        op_path = operator_paths.get(os.path.basename(portable_source(name)))
        if op_path is not None and op_path not in needed:
            needed.add(op_path)
            pending.append(op_path)
    read: list[str] = []
    seen_headers: set[str] = set()
    while pending:
        current = pending.pop()
        read.append(current)
        for include in _includes(current):
            if include in seen_headers:
                continue
            seen_headers.add(include)
            header = _find_header(include, include_dirs)
            if header is not None:
                pending.append(header)
            source = by_include_name.get(f"{os.path.splitext(include)[0]}.cpp")
            if source is not None and source not in needed:
                needed.add(source)
                pending.append(source)
    return SourcePlan(tuple(p for p in listed if p in needed), tuple(sorted(read)))
