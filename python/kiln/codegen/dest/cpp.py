"""Small C++ text helpers shared by the emitters: line wrapping, namespaces, file headers."""

from __future__ import annotations

import os
from collections.abc import Iterable
from string import Template

from kiln.codegen.library import Library

WIDTH = 100
_TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "templates")


def wrap_call(head: str, items: list[str], tail: str, indent: str = "", width: int = WIDTH) -> str:
    """``head(item, ...)tail`` on one line when it fits; else the items bin-packed on lines
    after ``head(``, indented four more spaces (the clang-format Google layout)."""
    one_line = f"{indent}{head}({', '.join(items)}){tail}"
    if len(one_line) <= width or not items:
        return one_line
    inner = indent + "    "
    lines: list[str] = []
    current = ""
    for index, item in enumerate(items):
        piece = item + ("," if index + 1 < len(items) else ")" + tail)
        candidate = f"{current} {piece}" if current else inner + piece
        if current and len(candidate) > width:
            lines.append(current)
            candidate = inner + piece
        current = candidate
    lines.append(current)
    return f"{indent}{head}(\n" + "\n".join(lines)


def wrap_braces(head: str, items: list[str], tail: str, width: int = WIDTH) -> str:
    """``head{item, ...}tail`` on one line when it fits, else one item per line."""
    one_line = f"{head}{{{', '.join(items)}}}{tail}"
    if len(one_line) <= width or not items:
        return one_line
    body = ",\n".join("    " + item for item in items)
    return f"{head}{{\n{body}}}{tail}"


def in_namespace(namespace: str, body: str) -> str:
    """``body`` wrapped in nested ``namespace a { namespace b {`` blocks."""
    parts = namespace.split("::")
    opening = "\n".join(f"namespace {p} {{" for p in parts)
    closing = "\n".join(f"}}  // namespace {p}" for p in reversed(parts))
    return f"{opening}\n\n{body}\n\n{closing}"


def source_names(library: Library) -> str:
    names = [
        os.path.basename(p)
        for p in (
            library.functions_yaml,
            *library.custom_ops_yamls,
            library.selection.selected_ops_path,
        )
        if p is not None
    ]
    return ", ".join(names)


def render(template_name: str, **values: str) -> str:
    with open(os.path.join(_TEMPLATE_DIR, template_name), encoding="utf-8") as stream:
        template = Template(stream.read())
    text = template.substitute(values)
    return "\n".join(line.rstrip() for line in text.splitlines()).rstrip("\n") + "\n"


def blocks(parts: Iterable[str]) -> str:
    return "\n\n".join(p for p in parts if p)
