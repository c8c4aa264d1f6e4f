"""C++ identifiers the YAML and the command line may name: namespaces, kernel functions and
library names (C++ keywords and namespaces generated code relies on are refused)."""

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

# Operator namespaces that would shadow what generated code refers to unqualified. Kiln's own
# operators (custom_ops.yaml, namespace `kiln`) get their typed API in `kiln` itself, not in a
# nested `kiln::kiln` (python/kiln/codegen/dest/functions.py), so `kiln` is allowed.
RESERVED_NAMESPACES = frozenset({"std"})


def is_identifier(text: str) -> bool:
    return bool(_IDENTIFIER.match(text)) and text not in CPP_KEYWORDS
