"""Operator names as users write them: a name without a namespace is ATen's (``add.out`` means
``aten::add.out``). Shared by the generator and the kiln package; imports nothing."""

from __future__ import annotations


def qualified(name: str) -> str:
    """``add.out`` -> ``aten::add.out``; a name with a namespace is returned as is."""
    return name if "::" in name else f"aten::{name}"
