"""Kiln's Python API: call any registered operator on torch tensors, without copies."""

from kiln._call import call_op
from kiln._errors import KilnError
from kiln._registry import (
    fallback_records,
    missing_operators,
    registered_operators,
    reset_fallback_stats,
)

__all__ = [
    "KilnError",
    "call_op",
    "fallback_records",
    "missing_operators",
    "registered_operators",
    "reset_fallback_stats",
]
