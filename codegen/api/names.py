"""Identifiers, C string literals and the operator-name hash shared with the runtime."""

from __future__ import annotations

import re

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast continue
    co_await co_return co_yield decltype default delete do double dynamic_cast else enum explicit
    export extern false float for friend goto if inline int long mutable namespace new noexcept
    not not_eq nullptr operator or or_eq private protected public register reinterpret_cast
    requires return short signed sizeof static static_assert static_cast struct switch template
    this thread_local throw true try typedef typeid typename union unsigned using virtual void
    volatile wchar_t while xor xor_eq""".split()
)

# Namespace names that would shadow what generated code refers to unqualified.
RESERVED_NAMESPACES = frozenset({"kiln", "std"})


def is_identifier(text: str) -> bool:
    return bool(_IDENTIFIER.match(text)) and text not in CPP_KEYWORDS


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
