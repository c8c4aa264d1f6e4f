"""Helpers shared by the unary op tests."""

from __future__ import annotations

from typing import Any

import pytest

import kiln


def is_portable(call_op: Any) -> bool:
    return getattr(call_op, "keywords", {}).get("backend") == "portable"


def raises(call_op: Any, text: str | None = None) -> Any:
    """Expects a KilnError whose message matches `text` on Kiln's own kernels (the ATen backend
    reports libtorch's wording, so there only the error itself is checked)."""
    return pytest.raises(kiln.KilnError, match=text if is_portable(call_op) else None)
