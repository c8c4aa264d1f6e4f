"""NativeFunctions.h: one declaration per distinct kernel function, grouped by namespace."""

from __future__ import annotations

from dataclasses import dataclass, field

from codegen.api.signature import Signature
from codegen.dest.cpp import blocks, in_namespace, render, source_names, wrap_call
from codegen.errors import UserError
from codegen.library import Library
from codegen.model import KernelEntry


@dataclass
class _Declaration:
    kernel: KernelEntry
    signature: Signature
    op_schemas: list[str] = field(default_factory=list)

    def text(self) -> str:
        comments = "\n".join(f"// {schema}" for schema in self.op_schemas)
        declaration = wrap_call(
            f"{self.signature.returns} {self.kernel.function}",
            self.signature.parameter_list(),
            ";",
        )
        return f"{comments}\n{declaration}"


def declarations(library: Library) -> dict[str, list[_Declaration]]:
    """Declarations by C++ namespace; a function bound by several ops is declared once."""
    found: dict[tuple[str, str, tuple[str, ...]], _Declaration] = {}
    for op in library.ops:
        for kernel in op.kernels:
            slot = (kernel.namespace, kernel.function, op.signature.parameter_types())
            existing = found.get(slot)
            if existing is None:
                existing = found[slot] = _Declaration(kernel, op.signature)
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
        declarations=blocks(sections) or "// No operators are selected.",
    )
