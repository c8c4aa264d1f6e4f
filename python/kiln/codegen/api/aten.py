"""ATen mode: libtorch's kernel for an ATen operator, and the argument conversions it needs.

In ATen mode (``--aten-mode``) an ATen operator's kernel is libtorch's ``at::_ops::<name>::call``
(the dispatcher entry with the schema's exact argument order). Kiln binds it as an inline adapter
``kiln::libtorch::<name>`` with Kiln's kernel signature, so the wrappers, the kernel table and
Functions.h are the same text as for any other kernel.
"""

from __future__ import annotations

import re
from typing import Any

_BRIDGE = "kiln::aten_bridge::"

# Schema types (array sizes dropped, SymInt kept) whose Kiln C++ type differs from libtorch's.
_CONVERSIONS: dict[str, str] = {
    "int[]": "int_list",
    "int[]?": "optional_int_list",
    "SymInt[]": "sym_int_list",
    "SymInt[]?": "optional_sym_int_list",
    "SymInt?": "optional_sym_int",
    "float[]": "double_list",
    "float[]?": "optional_double_list",
    "bool[]": "bool_list",
    "Tensor[]": "tensor_list",
    "Tensor?[]": "optional_tensor_list",
    "MemoryFormat": "memory_format",
    "MemoryFormat?": "optional_memory_format",
    "Layout": "layout",
    "Layout?": "optional_layout",
}


def ops_struct(schema: Any) -> str:
    """``at::_ops`` struct of an operator: ``add.Scalar_out`` -> ``add_Scalar_out``."""
    return str(schema.name.unambiguous_name())


def ops_header(schema: Any) -> str:
    """The per-operator header declaring the struct, e.g. ``ATen/ops/add_ops.h``."""
    return f"ATen/ops/{schema.name.name.base}_ops.h"


def to_aten(schema_type: str, value: str) -> str:
    """Expression passing Kiln's unboxed ``value`` as libtorch's parameter type."""
    fixed = re.fullmatch(r"bool\[(\d+)\]", schema_type)
    if fixed is not None:  # libtorch takes bool[N] as std::array<bool, N>
        return f"{_BRIDGE}bool_array<{fixed.group(1)}>({value})"
    key = re.sub(r"\[\d+\]", "[]", schema_type)
    conversion = _CONVERSIONS.get(key)
    return f"{_BRIDGE}{conversion}({value})" if conversion else value
