"""<lib>.manifest.json: what the library contains, for the Python bindings and missing_ops."""

from __future__ import annotations

import json
import os

from kiln.codegen.library import Library, LibraryOp

# 2: sources.custom_ops_yaml lists every custom-ops YAML (1: one path or null).
SCHEMA_VERSION = 2
# What --embed-manifest puts before the (compact) JSON in a built binary; missing_ops looks for it.
EMBEDDED_MARKER = "KILN_MANIFEST_V1\n"


def _operator(op: LibraryOp) -> dict[str, object]:
    arguments = [
        {
            "name": p.name,
            "type": p.schema_type,
            "kind": p.arg_type.kind,
            "default": p.default,
            "kwarg_only": p.kwarg_only,
            "is_out": p.is_out,
        }
        for p in op.signature.params
    ]
    kernels = [
        {
            "backend": k.backend,
            "key": k.key.native_string(),
            "kernel_name": k.kernel_name,
            "cpp_function": k.cpp_function,
            "source": k.origin if k.is_libtorch else str(k.source),
        }
        for k in op.kernels
    ]
    return {
        "name": op.name,
        "schema": op.entry.schema_text,
        "cpp_name": op.cpp_name,
        "arguments": arguments,
        # The argument each returned tensor is (null: a new tensor); an in-place op returns self.
        "returns": [r.aliases.name if r.aliases else None for r in op.signature.results],
        "kernels": kernels,
    }


def _absolute(path: str | None) -> str | None:
    """Paths are recorded absolute: a manifest is read from other working directories."""
    return os.path.abspath(path) if path is not None else None


def emit(library: Library) -> str:
    document = {
        "schema_version": SCHEMA_VERSION,
        "library": library.name,
        "generator": "kiln-codegen",
        "backends": list(library.backends),
        "sources": {
            "functions_yaml": _absolute(library.functions_yaml),
            "custom_ops_yaml": [os.path.abspath(p) for p in library.custom_ops_yamls],
            "selected_ops": _absolute(library.selection.selected_ops_path),
        },
        "selection": {
            "include_all_operators": library.selection.include_all,
            "root_ops": library.selection.root_ops(),
        },
        "operators": [_operator(op) for op in library.ops],
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"
