"""Resolves parsed YAML files, a selection and the chosen backends into one operator library.

This is where the build-time guarantees live: every selected operator follows the contract
(``api/contract.py``: it writes only what its schema marks written), has types Kiln can unbox and
has at least one kernel on the chosen backends.

It sits at the top level, beside cli.py, because it joins the packages: the YAML data model
(``model``), the selection (``selective_build.selector``) and the contract checks (``api``).
The emitters (``dest``) and ``selective_build.kernel_sources`` read the ``Library`` it builds.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from kiln.codegen.api.aten import ops_struct
from kiln.codegen.api.contract import check_contract, check_types
from kiln.codegen.api.names import mangle
from kiln.codegen.api.signature import Signature, signature_of
from kiln.codegen.errors import UserError
from kiln.codegen.model.backends import BACKENDS
from kiln.codegen.model.entries import (
    LIBTORCH_NAMESPACE,
    LIBTORCH_ORIGIN,
    KernelEntry,
    OpEntry,
    SourceLoc,
    YamlFile,
)
from kiln.codegen.model.kernel_keys import DTYPE_NAMES, KernelKey
from kiln.codegen.model.parse import closest
from kiln.codegen.model.schemas import AtenSchemas
from kiln.codegen.selective_build.selector import Selection


@dataclass(frozen=True)
class LibraryOp:
    entry: OpEntry
    kernels: tuple[KernelEntry, ...]  # on the chosen backends, as selected; sorted
    signature: Signature
    cpp_name: str  # the typed API name in Functions.h
    dtype_mask: int | None  # None: every dtype
    symbol: str  # C++ identifier fragment naming the op in generated code, e.g. aten_add_out

    @property
    def name(self) -> str:
        return self.entry.name

    def default_kernel(self, backends: tuple[str, ...]) -> KernelEntry | None:
        """The kernel the typed API calls: portable's default if any, else the first backend's."""
        defaults = {k.backend: k for k in self.kernels if k.key.is_default}
        for backend in ("portable", *backends):
            if backend in defaults:
                return defaults[backend]
        return None


@dataclass(frozen=True)
class Library:
    name: str
    backends: tuple[str, ...]  # in kiln::Backend order
    ops: tuple[LibraryOp, ...]  # sorted by name
    files: tuple[YamlFile, ...]
    functions_yaml: str | None
    custom_ops_yamls: tuple[str, ...]
    selection: Selection


def default_backends(files: list[YamlFile]) -> tuple[str, ...]:
    used = {kernel.backend for f in files for op in f.ops for kernel in op.kernels}
    return tuple(b for b in BACKENDS if b in used)


def _merge(files: list[YamlFile]) -> dict[str, OpEntry]:
    ops: dict[str, OpEntry] = {}
    for yaml_file in files:
        for op in yaml_file.ops:
            first = ops.get(op.name)
            if first is not None:
                raise UserError(
                    op.source.path,
                    op.source.line,
                    f"{op.name} is declared twice (first at {first.source})",
                    "keep one entry per operator and list all its kernels there",
                )
            ops[op.name] = op
    return ops


def _libtorch_kernel(schema: Any) -> KernelEntry:
    """libtorch's kernel of an ATen operator (ATen mode), as the portable default kernel."""
    struct = ops_struct(schema)
    return KernelEntry(
        "portable",
        KernelKey(),
        f"at::_ops::{struct}::call",
        LIBTORCH_NAMESPACE,
        struct,
        SourceLoc(LIBTORCH_ORIGIN, 0),
    )


def _aten_op_entry(name: str, schemas: AtenSchemas, source: SourceLoc) -> OpEntry | None:
    """ATen mode: an entry for ATen operator ``aten::name.overload`` that no YAML declares, with
    libtorch's kernel; None when native_functions.yaml does not know the name."""
    namespace, _, bare = name.rpartition("::")
    if namespace not in ("", "aten"):
        return None
    schema_text = schemas.index.lookup(bare)
    if schema_text is None:
        return None
    from torchgen.model import FunctionSchema

    schema = FunctionSchema.parse(schema_text)
    return OpEntry(f"aten::{schema.name}", "aten", schema, (_libtorch_kernel(schema),), source)


def _with_libtorch_kernels(
    ops: dict[str, OpEntry], selection: Selection, schemas: AtenSchemas
) -> dict[str, OpEntry]:
    """ATen mode: every ATen operator gets libtorch's kernel instead of its YAML kernels, and
    ATen operators the selection names need no YAML entry (their schema is ATen's)."""
    result: dict[str, OpEntry] = {}
    for name, op in ops.items():
        if op.namespace == "aten" and schemas.index.lookup(name.split("::", 1)[1]) is not None:
            op = dataclasses.replace(op, kernels=(_libtorch_kernel(op.schema),))
        result[name] = op
    for request in selection.requests:
        path, line = request.where()
        bare = request.name.split("::", 1)[-1]
        names = schemas.index.out_overloads_of(bare) if request.all_overloads else [bare]
        if not names and schemas.index.lookup(bare) is not None:
            names = [bare]  # an op without out variants, e.g. the in-place aten::copy_
        for overload in names:
            if f"aten::{overload}" in result:
                continue
            entry = _aten_op_entry(overload, schemas, SourceLoc(path, line or 0))
            if entry is None:
                continue  # reported as missing below
            contract = (check_contract(entry.schema), check_types(entry.schema))
            if request.all_overloads and any(v is not None for v in contract):
                continue  # e.g. sum.DimnameList_out under "aten::sum": not an op Kiln can run
            result[entry.name] = entry
    return result


def _check_contract(op: OpEntry) -> None:
    for violation in (check_contract(op.schema), check_types(op.schema)):
        if violation is not None:
            fix = violation.fix
            if op.out_overloads:
                variants = ", ".join(op.out_overloads[:4])
                fix = f"use its out variant ({variants}), or {fix}"
            raise UserError(op.source.path, op.source.line, f"{op.name}: {violation.message}", fix)


def _select_kernels(
    op: OpEntry, backends: tuple[str, ...], selection: Selection
) -> list[KernelEntry]:
    chosen: list[KernelEntry] = []
    for backend in backends:
        mine = [k for k in op.kernels if k.backend == backend]
        keys = selection.select_kernel_keys(op.name, [k.key for k in mine])
        chosen += [k for k in mine if k.key in keys]
    return sorted(chosen, key=lambda k: (k.backend_index, k.key.table_string()))


def _unserved_key(op: OpEntry, kernels: list[KernelEntry], selection: Selection) -> str | None:
    """A key the selection asks for that no chosen kernel serves (exactly or by default)."""
    wanted = selection.model_keys(op.name)
    if wanted is None or any(k.key.is_default for k in kernels):
        return None
    bodies = {k.key.body() for k in kernels}
    for key in wanted:
        if key.body() not in bodies:
            return key.native_string()
    return None


def _missing_error(
    missing: list[tuple[str, str, int | None, str]], searched: str, backends: tuple[str, ...]
) -> UserError:
    missing.sort(key=lambda m: m[0])
    name, path, line, reason = missing[0]
    more = ""
    if len(missing) > 1:
        more = f" ({len(missing) - 1} more: {', '.join(m[0] for m in missing[1:])})"
    return UserError(
        path,
        line,
        f"{name} is selected but {reason} (searched {searched}; backends: "
        f"{', '.join(backends) or 'none'}){more}",
        "add a kernel for it to one of those files, choose its backend with --backends, or "
        "remove it from the selection",
    )


def _cpp_names(ops: list[tuple[OpEntry, Signature]]) -> dict[str, str]:
    """Functions.h names: torchgen's faithful out names, disambiguated when signatures clash."""
    from torchgen.api import cpp

    names = {
        op.name: str(cpp.name(op.schema, faithful_name_for_out_overloads=True)) for op, _ in ops
    }
    groups: dict[tuple[str, str, tuple[str, ...]], list[OpEntry]] = defaultdict(list)
    for op, signature in ops:
        groups[(op.namespace, names[op.name], signature.parameter_types())].append(op)
    for clashing in groups.values():
        if len(clashing) > 1:
            for op in clashing:
                schema_name: Any = op.schema.name
                names[op.name] = f"{schema_name.name}_{schema_name.overload_name}f"
    final: dict[tuple[str, str, tuple[str, ...]], OpEntry] = {}
    for op, signature in ops:
        slot = (op.namespace, names[op.name], signature.parameter_types())
        other = final.get(slot)
        if other is not None:
            raise UserError(
                op.source.path,
                op.source.line,
                f"{op.name} and {other.name} would both be kiln::{op.namespace}::{names[op.name]} "
                "with the same parameters in Functions.h",
                "rename one of the operators' overloads",
            )
        final[slot] = op
    return names


def _symbols(names: list[str]) -> dict[str, str]:
    """Unique identifiers per op (``a_b::c.d`` and ``a::b_c.d`` would both mangle to a_b_c_d)."""
    taken: set[str] = set()
    symbols: dict[str, str] = {}
    for name in names:
        symbol = base = mangle(name)
        suffix = 2
        while symbol in taken:
            symbol = f"{base}_{suffix}"
            suffix += 1
        taken.add(symbol)
        symbols[name] = symbol
    return symbols


def build_library(
    name: str,
    files: list[YamlFile],
    selection: Selection,
    backends: tuple[str, ...] | None,
    functions_yaml: str | None,
    custom_ops_yamls: tuple[str, ...],
    aten_schemas: AtenSchemas | None = None,
) -> Library:
    """Resolves the library; with ``aten_schemas`` (ATen mode) ATen operators run libtorch's
    kernels, and the selection may name ATen operators no YAML declares."""
    ops = _merge(files)
    chosen_backends = backends if backends is not None else default_backends(files)
    if aten_schemas is not None:
        ops = _with_libtorch_kernels(ops, selection, aten_schemas)
        if backends is None:
            used = {kernel.backend for op in ops.values() for kernel in op.kernels}
            chosen_backends = tuple(b for b in BACKENDS if b in used)
    searched = ", ".join(f.path for f in files)
    missing: list[tuple[str, str, int | None, str]] = []
    resolved: list[tuple[OpEntry, list[KernelEntry]]] = []
    for op in sorted(ops.values(), key=lambda o: o.name):
        if not selection.is_selected(op.name):
            continue
        _check_contract(op)
        kernels = _select_kernels(op, chosen_backends, selection)
        unserved = _unserved_key(op, kernels, selection)
        if not any(k.backend in chosen_backends for k in op.kernels):
            reason = "has no kernel on the chosen backends" if op.kernels else "has no kernel"
            missing.append((op.name, op.source.path, op.source.line, reason))
        elif unserved is not None:
            origin = selection.metadata_origins.get(op.name, op.source)
            dtypes = ", ".join(
                DTYPE_NAMES.get(arg.dtype, str(arg.dtype)) for arg in KernelKey.parse(unserved).args
            )
            reason = (
                f"its kernel key {unserved} (dtypes {dtypes}) has neither a matching nor a "
                "default kernel"
            )
            missing.append((op.name, origin.path, origin.line, reason))
        resolved.append((op, kernels))
    for request in selection.requests:
        if request.all_overloads:
            found = any(n.split(".", 1)[0] == request.name for n in ops)
        else:
            found = request.name in ops
        if not found:
            path, line = request.where()
            hint = closest(request.name, ops)
            reason = "no YAML entry declares it" + (
                f" (did you mean {' or '.join(hint)}?)" if hint else ""
            )
            if aten_schemas is not None:
                reason = "it is not an operator of ATen's native_functions.yaml and " + reason
            missing.append((request.name, path, line, reason))
    if missing:
        raise _missing_error(missing, searched or "no files", chosen_backends)
    signatures = [(op, signature_of(op.schema)) for op, _ in resolved]
    cpp_names = _cpp_names(signatures)
    symbols = _symbols([op.name for op, _ in resolved])
    library_ops = tuple(
        LibraryOp(
            op,
            tuple(kernels),
            signature,
            cpp_names[op.name],
            selection.dtype_mask(op.name),
            symbols[op.name],
        )
        for (op, kernels), (_, signature) in zip(resolved, signatures, strict=True)
    )
    return Library(
        name,
        tuple(chosen_backends),
        library_ops,
        tuple(files),
        functions_yaml,
        custom_ops_yamls,
        selection,
    )
