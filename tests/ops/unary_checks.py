"""Helpers shared by the unary op tests."""

from __future__ import annotations

from op_compare import is_portable, raises  # noqa: F401 (re-exported)
