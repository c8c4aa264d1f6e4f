"""selected_op_variants.h: per-op dtype masks for the kernels' dtype switches."""

from __future__ import annotations

from kiln.codegen.dest.cpp import render, source_names
from kiln.codegen.library import Library
from kiln.codegen.model.kernel_keys import DTYPE_NAMES


def _mask_line(symbol: str, mask: int | None) -> str:
    if mask is None:
        return f"constexpr uint64_t {symbol} = kAllDtypes;"
    names = [DTYPE_NAMES.get(code, str(code)) for code in range(64) if mask >> code & 1]
    return f"constexpr uint64_t {symbol} = 0x{mask:x}ull;  // {', '.join(names) or 'none'}"


def emit(library: Library) -> str:
    lines = [_mask_line(op.symbol, op.dtype_mask) for op in library.ops]
    return render(
        "selected_op_variants.h.in",
        sources=source_names(library) or "no YAML",
        library=library.name,
        masks="\n".join(lines) if lines else "// No operators are selected.",
    )
