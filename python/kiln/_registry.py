"""Registry queries: what is registered, and which calls fell back to another backend."""

from __future__ import annotations

from kiln import _C


def registered_operators() -> list[dict[str, str]]:
    """Every registered kernel: name, backend, key ("default" or v1/...) and origin yaml:line."""
    return list(_C.registered_kernels())


def fallback_records() -> list[tuple[str, str, str, int]]:
    """(operator, requested backend, backend that ran it, count) for each fallback seen."""
    return list(_C.fallback_records())


def reset_fallback_stats() -> None:
    _C.reset_fallback_stats()
