"""Functions.h: the typed API ``kiln::<op ns>::<name>(ctx, args..., out)`` per selected op."""

from __future__ import annotations

from kiln.codegen.dest.cpp import blocks, in_namespace, render, source_names, wrap_call
from kiln.codegen.library import Library, LibraryOp


def _function(op: LibraryOp, backends: tuple[str, ...]) -> str:
    comment = f"// {op.entry.schema_text}"
    kernel = op.default_kernel(backends)
    if kernel is None:
        note = f"// {op.name} has only dtype-specialised kernels; call it through the registry."
        return f"{comment}\n{note}"
    signature = op.signature
    head = wrap_call(f"inline {signature.returns} {op.cpp_name}", signature.parameter_list(), " {")
    # Fully qualified: inside kiln::<op ns>, a kernel namespace such as `torch::executor` could
    # otherwise resolve to a sibling kiln::torch.
    target = f"::{kernel.cpp_function}"
    if signature.returns != "void":
        target = f"return {target}"
    call = wrap_call(target, signature.argument_names(), ";", indent="  ")
    return f"{comment}\n{head}\n{call}\n}}"


def emit(library: Library) -> str:
    by_namespace: dict[str, list[str]] = {}
    for op in library.ops:
        by_namespace.setdefault(op.entry.namespace, []).append(_function(op, library.backends))
    # Kiln's own operators (namespace kiln) go straight into `kiln`: a nested `kiln::kiln` would
    # shadow `kiln::` in every name the declarations use.
    sections = [
        in_namespace(
            "kiln" if namespace == "kiln" else f"kiln::{namespace}", "\n\n".join(functions)
        )
        for namespace, functions in sorted(by_namespace.items())
    ]
    return render(
        "Functions.h.in",
        sources=source_names(library) or "no YAML",
        library=library.name,
        functions=blocks(sections) or "// No operators are selected.",
    )
