"""RegisterKernels.h / RegisterKernels.cpp: unboxing wrappers and the sorted kernel table."""

from __future__ import annotations

import json
from dataclasses import dataclass

from kiln.codegen.api.names import c_string, fnv1a64
from kiln.codegen.dest.cpp import WIDTH, blocks, render, source_names, wrap_braces, wrap_call
from kiln.codegen.dest.manifest import EMBEDDED_MARKER
from kiln.codegen.library import Library, LibraryOp
from kiln.codegen.model.backends import BACKEND_ENUMS
from kiln.codegen.model.entries import KernelEntry


@dataclass(frozen=True)
class _Row:
    op: LibraryOp
    kernel: KernelEntry
    wrapper: str

    def sort_key(self) -> tuple[int, bytes, int, bytes]:
        # The runtime compares with strcmp, i.e. bytewise; so do we.
        return (
            fnv1a64(self.op.name),
            self.op.name.encode(),
            self.kernel.backend_index,
            self.kernel.key.table_string().encode(),
        )

    def text(self) -> str:
        fields = [
            c_string(self.op.name),
            f"0x{fnv1a64(self.op.name):016x}ull",
            c_string(self.kernel.key.table_string()),
            BACKEND_ENUMS[self.kernel.backend],
            self.wrapper,
            c_string(self.kernel.origin),
        ]
        signature = self.op.signature
        fields += [str(signature.return_slots), str(len(signature.params)), _writes_name(self.op)]
        return "{" + ", ".join(fields) + "}"


def _wrapper_names(op: LibraryOp) -> dict[tuple[str, str], str]:
    """One wrapper per (backend, C++ function) of an op; keyed kernels sharing one share it."""
    names: dict[tuple[str, str], str] = {}
    for backend in dict.fromkeys(k.backend for k in op.kernels):
        functions = list(dict.fromkeys(k.cpp_function for k in op.kernels if k.backend == backend))
        base = f"boxed_{backend}_{op.symbol}"
        if len(functions) == 1:
            names[(backend, functions[0])] = base
            continue
        used: set[str] = set()
        for function in functions:
            name = f"{base}__{function.rsplit('::', 1)[-1]}"
            suffix = 2
            while name in used:
                name = f"{base}__{function.rsplit('::', 1)[-1]}_{suffix}"
                suffix += 1
            used.add(name)
            names[(backend, function)] = name
    return names


def _arg_specs(op: LibraryOp) -> str:
    specs = [
        f"{{{c_string(p.name)}, kiln::ArgKind::{p.arg_type.kind}}}" for p in op.signature.params
    ]
    return wrap_braces(f"constexpr kiln::ArgSpec kArgs_{op.symbol}[] = ", specs, ";")


# Kernel::writes holds one bit per stack argument; a written argument past it leaves the mask
# unknown, and the executor infers the writes from the operator's name.
_WRITES_BITS = 64


def _writes_name(op: LibraryOp) -> str:
    return f"kWrites_{op.symbol}"


def _writes(op: LibraryOp) -> str:
    """The arguments the kernels write, the schema's Tensor(a!) ones, as the mask Method::load
    checks against the program's constants and inputs."""
    written = [(i, p.name) for i, p in enumerate(op.signature.params) if p.is_written]
    head = f"constexpr uint64_t {_writes_name(op)} = "
    if any(i >= _WRITES_BITS for i, _ in written):
        return f"// Writes an argument past the mask's bits.\n{head}kiln::kUnknownWrites;"
    if not written:
        return f"// Writes none of its arguments.\n{head}0x0ull;"
    names = ", ".join(f"{name} ({i})" for i, name in written)
    mask = sum(1 << i for i, _ in written)
    return f"// Writes {names}.\n{head}0x{mask:x}ull;"


def _return_if_error(call: str) -> str:
    line = f"  KILN_RETURN_IF_ERROR({call});"
    return line if len(line) <= WIDTH else f"  KILN_RETURN_IF_ERROR(\n      {call});"


def _store_results(op: LibraryOp) -> tuple[str, list[str]]:
    """In-place and functional ops: the prefix capturing the kernel's result, and the lines that
    store each result in its return slot after the arguments (ExecuTorch's convention)."""
    signature = op.signature
    if not signature.return_slots:
        return "", []
    slot = len(signature.params)
    stores = []
    for index, result in enumerate(signature.results):
        if not result.has_slot:
            continue
        value = "result" if len(signature.results) == 1 else f"std::get<{index}>(result)"
        stores.append(f"  *stack[{slot}] = kiln::EValue({value});")
        slot += 1
    return f"{signature.returns} result = ", stores


def _wrapper(op: LibraryOp, kernel: KernelEntry, name: str, check_dtypes: bool) -> str:
    head = wrap_call(
        f"kiln::Error {name}",
        ["kiln::KernelRuntimeContext& ctx", "kiln::Span<kiln::EValue*> stack"],
        " {",
    )
    slots = f", {op.signature.return_slots}" if op.signature.return_slots else ""
    checks = [
        _return_if_error(
            f"kiln::check_arguments(ctx, {c_string(op.name)}, stack, kArgs_{op.symbol}{slots})"
        )
    ]
    if check_dtypes:
        checks.append(
            _return_if_error(
                f"kiln::check_selected_dtypes(ctx, stack, kArgs_{op.symbol}, "
                f"kiln::selected::{op.symbol})"
            )
        )
    values = [p.arg_type.unbox_expr(f"stack[{i}]") for i, p in enumerate(op.signature.params)]
    capture, stores = _store_results(op)
    call = wrap_call(f"{capture}{kernel.cpp_function}", ["ctx", *values], ";", indent="  ")
    body = [*checks, call, *stores, "  return ctx.failure_state();"]
    return f"{head}\n" + "\n".join(body) + "\n}"


def _embedded_manifest(manifest_json: str) -> str:
    compact = json.dumps(json.loads(manifest_json), separators=(",", ":"), sort_keys=True)
    return (
        "// --embed-manifest: the manifest stays in the binary (the table points at it), so\n"
        "// python -m kiln.codegen.missing_ops --library can read it from a built library or\n"
        "// program.\n"
        f'constexpr char kManifest[] = "{EMBEDDED_MARKER.encode("unicode_escape").decode()}" '
        f'R"kiln_manifest({compact})kiln_manifest";'
    )


def emit_source(
    library: Library,
    static_registration: bool,
    manifest_json: str | None = None,
    dtype_selective: bool = False,
) -> str:
    """RegisterKernels.cpp; with ``manifest_json`` the manifest is embedded in the binary. In a
    ``dtype_selective`` library the portable kernels of dtype-restricted operators refuse
    unselected dtypes before they run."""
    sections: list[str] = []
    rows: list[_Row] = []
    for op in library.ops:
        names = _wrapper_names(op)
        wrappers: dict[str, str] = {}
        for kernel in op.kernels:
            name = names[(kernel.backend, kernel.cpp_function)]
            rows.append(_Row(op, kernel, name))
            if name not in wrappers:
                check_dtypes = (
                    dtype_selective and kernel.backend == "portable" and op.dtype_mask is not None
                )
                wrappers[name] = _wrapper(op, kernel, name, check_dtypes)
        specs = f"// {op.entry.schema_text}\n{_arg_specs(op)}\n{_writes(op)}"
        sections.append("\n\n".join([specs, *wrappers.values()]))
    rows.sort(key=_Row.sort_key)
    library_name = c_string(library.name)
    manifest = ""
    if manifest_json is not None:
        sections.append(_embedded_manifest(manifest_json))
        manifest = ", kManifest"
    if rows:
        table = wrap_braces(
            "constexpr kiln::Kernel kKernels[] = ", [r.text() for r in rows], ";", width=0
        )
        table += (
            f"\nconstexpr kiln::KernelTable kTable = {{{library_name}, kKernels, "
            f"sizeof(kKernels) / sizeof(kKernels[0]){manifest}}};"
        )
    else:
        table = (
            "// No operators are selected; an empty table still registers cleanly.\n"
            f"constexpr kiln::KernelTable kTable = {{{library_name}, nullptr, 0{manifest}}};"
        )
    sections.append(table)
    static = ""
    if static_registration:
        register = f"register_{library.name}_kernels()"
        static = (
            "\n// --static-registration: registers while the program starts. A failure is logged"
            f"\n// by the registry and never aborts; {register} returns the error.\n"
            "namespace {\n"
            f"[[maybe_unused]] const kiln::Error kStaticRegistration = {register};\n"
            "}  // namespace"
        )
    return render(
        "RegisterKernels.cpp.in",
        sources=source_names(library) or "no YAML",
        library=library.name,
        wrappers=blocks(sections),
        static_registration=static,
    )


def emit_header(library: Library) -> str:
    return render(
        "RegisterKernels.h.in", sources=source_names(library) or "no YAML", library=library.name
    )
