"""Every file generated for one library, by its path under --output-dir."""

from __future__ import annotations

from kiln.codegen.dest import (
    dtype_selected,
    functions,
    manifest,
    mindspore_aot,
    native_functions,
    register_kernels,
    selected_variants,
)
from kiln.codegen.library import Library
from kiln.codegen.selective_build.kernel_sources import plan_sources


def emit(
    library: Library,
    static_registration: bool,
    embed_manifest: bool = False,
    kernel_sources: str | None = None,
    mindspore: bool = False,
) -> dict[str, str]:
    """Generated files by name; ``kernel_sources`` (a source list file) makes the build
    dtype-selective; ``mindspore`` adds the MindSpore AOT entry points."""
    manifest_json = manifest.emit(library)
    outputs = {
        "NativeFunctions.h": native_functions.emit(library),
        "Functions.h": functions.emit(library),
        "RegisterKernels.h": register_kernels.emit_header(library),
        "RegisterKernels.cpp": register_kernels.emit_source(
            library,
            static_registration,
            manifest_json if embed_manifest else None,
            dtype_selective=kernel_sources is not None,
        ),
        "selected_op_variants.h": selected_variants.emit(library),
        f"{library.name}.manifest.json": manifest_json,
    }
    if mindspore:
        outputs["MindSporeAot.cpp"] = mindspore_aot.emit(library)
    if kernel_sources is not None:
        for source in plan_sources(library, kernel_sources):
            outputs[f"dtype_selected/{source.stem}.cpp"] = dtype_selected.emit(library.name, source)
    return outputs
