"""MindSporeAot.cpp (--mindspore-aot): one MindSpore AOT entry point per operator that writes
tensors: an out variant, or an operator that updates arguments in place (reshape_and_cache),
whose updated arguments MindSpore receives as outputs."""

from __future__ import annotations

from kiln.codegen.api.names import c_string
from kiln.codegen.api.signature import Param
from kiln.codegen.dest.cpp import render, source_names, wrap_braces, wrap_call
from kiln.codegen.library import Library, LibraryOp
from kiln.codegen.wording import with_article

# Schema type -> how MindSpore passes it (kiln::mindspore::AotArg); other types have no form
# that MindSpore's tensor-only AOT interface can carry.
AOT_ARGS = {
    "Tensor": "Tensor",
    "Tensor?": "OptionalTensor",
    "int": "Int",
    "float": "Double",
    "bool": "Bool",
    "Scalar": "Scalar",
    "str": "String",
}

ENTRY_PREFIX = "kiln_ms_"

_PARAMETERS = [
    "int nparam",
    "void** params",
    "int* ndims",
    "int64_t** shapes",
    "const char** dtypes",
    "void* stream",
    "void* extra",
]


def unsupported(op: LibraryOp) -> str | None:
    """Why ``op`` gets no entry point, or None when it gets one."""
    params = op.signature.params
    outs = [p for p in params if p.is_out]
    if not any(p.is_written for p in params):
        return "it writes no tensor (neither an out variant nor an in-place operator)"
    if params[len(params) - len(outs) :] != tuple(outs):
        return "its outs are not its last arguments"
    if any(result.has_slot for result in op.signature.results):
        return "it returns a tensor in a result slot of its own (an in-place or functional form)"
    for param in params:
        if param.schema_type not in AOT_ARGS:
            return f"argument '{param.name}' is {with_article(param.schema_type)}"
        if param.is_written and not param.is_out and param.schema_type != "Tensor":
            return f"argument '{param.name}' is an optional tensor written in place"
    return None


def entry_name(op: LibraryOp) -> str:
    return ENTRY_PREFIX + op.symbol


def _arg_kind(param: Param) -> str:
    if param.is_out:
        return "AotArg::Tensor"
    if param.is_written:
        return "AotArg::WrittenTensor"
    return f"AotArg::{AOT_ARGS[param.schema_type]}"


def emit(library: Library) -> str:
    tables: list[str] = []
    entries: list[str] = []
    rows: list[str] = []
    for op in library.ops:
        reason = unsupported(op)
        if reason is not None:
            entries.append(f"// {op.name}: no entry point, {reason}.")
            continue
        params = op.signature.params
        outs = sum(p.is_out for p in params)
        table = f"kAot_{op.symbol}"
        tables.append(
            wrap_braces(f"constexpr AotArg {table}[] = ", [_arg_kind(p) for p in params], ";")
        )
        entry = entry_name(op)
        entries.append(
            f"// {op.entry.schema_text}\n"
            f"{wrap_call(f'KILN_AOT_EXPORT int {entry}', _PARAMETERS, ' {')}\n"
            "  (void)stream;\n"
            "  (void)extra;\n"
            "  const kiln::mindspore::AotOp op{\n"
            f"      {c_string(op.name)}, {table}, {len(params)}, {outs}, registration()}};\n"
            "  return kiln::mindspore::run_aot_op(op, nparam, params, ndims, shapes, dtypes);\n"
            "}"
        )
        rows.append(f"      {{{c_string(op.name)}, {c_string(entry)}}},")
    # A zero-length array is not C++; a null row keeps the table valid when no op qualifies.
    rows.append("      {nullptr, nullptr},")
    return render(
        "MindSporeAot.cpp.in",
        sources=source_names(library) or "no YAML",
        library=library.name,
        arg_tables="\n".join(tables),
        entry_points="\n\n".join(entries),
        entry_rows="\n".join(rows),
    )
