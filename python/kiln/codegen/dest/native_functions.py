"""NativeFunctions.h: one declaration per distinct kernel function, grouped by namespace."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kiln.codegen.api.aten import ops_header, ops_struct, to_aten
from kiln.codegen.api.signature import Signature
from kiln.codegen.dest.cpp import blocks, in_namespace, render, source_names, wrap_call
from kiln.codegen.errors import UserError
from kiln.codegen.library import Library
from kiln.codegen.model.entries import KernelEntry


@dataclass
class _Declaration:
    kernel: KernelEntry
    signature: Signature
    op_schemas: list[str] = field(default_factory=list)
    schema: Any = None  # the operator's torchgen schema, for libtorch adapters

    def text(self) -> str:
        comments = "\n".join(f"// {schema}" for schema in self.op_schemas)
        if self.kernel.is_libtorch:
            return f"{comments}\n{_libtorch_adapter(self.kernel, self.signature, self.schema)}"
        declaration = wrap_call(
            f"{self.signature.returns} {self.kernel.function}",
            self.signature.parameter_list(),
            ";",
        )
        return f"{comments}\n{declaration}"


def _libtorch_adapter(kernel: KernelEntry, signature: Signature, schema: Any) -> str:
    """ATen mode: Kiln's kernel signature over libtorch's at::_ops call. libtorch reports bad
    input by throwing; the adapter records that in the context, so nothing escapes."""
    ctx = signature.context_name
    head = wrap_call(
        f"inline {signature.returns} {kernel.function}", signature.parameter_list(), " {"
    )
    arguments = [to_aten(p.schema_type, p.cpp_name) for p in signature.params]
    target = f"at::_ops::{ops_struct(schema)}::call"
    if signature.returns != "void":
        target = f"return {target}"
    call = wrap_call(target, arguments, ";", indent="    ")
    # After a failure: the written arguments it returns, or empty new tensors. torchgen's schema
    # rules keep the two kinds of return from mixing.
    returned = [r.aliases.cpp_name for r in signature.results if r.aliases is not None]
    if signature.returns == "void":
        fallback = ""
    elif not returned:
        fallback = "\n  return {};"
    elif signature.returns.startswith("std::tuple"):
        fallback = f"\n  return std::forward_as_tuple({', '.join(returned)});"
    else:
        fallback = f"\n  return {returned[0]};"
    return (
        f"{head}\n  try {{\n{call}\n"
        f"  }} catch (const std::exception& error) {{\n"
        f"    kiln::aten_bridge::fail_from_exception({ctx}, error);\n"
        f"  }} catch (...) {{\n"
        f"    kiln::aten_bridge::fail_from_unknown_exception({ctx});\n"
        f"  }}{fallback}\n}}"
    )


def _libtorch_includes(library: Library) -> str:
    headers = sorted(
        {ops_header(op.entry.schema) for op in library.ops for k in op.kernels if k.is_libtorch}
    )
    if not headers:
        return ""
    lines = [f"#include <{header}>" for header in headers]
    lines.append('#include "runtime/kernel/aten/aten_bridge.h"')
    return "// ATen mode: libtorch's kernels.\n" + "\n".join(lines)


def declarations(library: Library) -> dict[str, list[_Declaration]]:
    """Declarations by C++ namespace; a function bound by several ops is declared once."""
    found: dict[tuple[str, str, tuple[str, ...]], _Declaration] = {}
    for op in library.ops:
        for kernel in op.kernels:
            slot = (kernel.namespace, kernel.function, op.signature.parameter_types())
            existing = found.get(slot)
            if existing is None:
                existing = found[slot] = _Declaration(kernel, op.signature, schema=op.entry.schema)
            elif existing.signature.returns != op.signature.returns:
                raise UserError(
                    kernel.source.path,
                    kernel.source.line,
                    f"{kernel.cpp_function} is bound with the same parameters but different "
                    f"return types (also at {existing.kernel.source})",
                    "bind different functions, or give the ops matching returns",
                )
            if op.entry.schema_text not in existing.op_schemas:
                existing.op_schemas.append(op.entry.schema_text)
    by_namespace: dict[str, list[_Declaration]] = {}
    for (namespace, _, _), declaration in sorted(found.items(), key=lambda item: item[0][:2]):
        by_namespace.setdefault(namespace, []).append(declaration)
    return by_namespace


def emit(library: Library) -> str:
    sections = [
        in_namespace(namespace, "\n\n".join(d.text() for d in decls))
        for namespace, decls in sorted(declarations(library).items())
    ]
    return render(
        "NativeFunctions.h.in",
        sources=source_names(library) or "no YAML",
        library=library.name,
        declarations=blocks([_libtorch_includes(library), *sections])
        or "// No operators are selected.",
    )
