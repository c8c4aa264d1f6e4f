"""C++ names in generated code: parameter names, op symbols, C string literals and the
operator-name hash shared with the runtime."""

from __future__ import annotations

import re

from kiln.codegen.model.identifiers import CPP_KEYWORDS


def cpp_identifier(name: str) -> str:
    """A schema argument name usable as a C++ parameter name."""
    return f"{name}_" if name in CPP_KEYWORDS else name


def mangle(op_name: str) -> str:
    """``aten::add.Scalar_out`` -> ``aten_add_Scalar_out``."""
    return re.sub(r"[^A-Za-z0-9_]", "_", op_name.replace("::", "_"))


def c_string(text: str) -> str:
    """A C++ string literal holding ``text``."""
    escaped = []
    for char in text:
        if char in ('"', "\\"):
            escaped.append("\\" + char)
        elif " " <= char <= "~":
            escaped.append(char)
        else:
            escaped.extend(f"\\x{byte:02x}" for byte in char.encode())
    return '"' + "".join(escaped) + '"'


def fnv1a64(text: str) -> int:
    """FNV-1a 64 of the UTF-8 bytes, as ``kiln::hash_operator_name`` computes it."""
    value = 0xCBF29CE484222325
    for byte in text.encode():
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value
