"""Types of the native extension (python/src/module.cpp)."""

from typing import Any

class CallOutcome:
    error: str
    message: str
    backend: str
    ns_per_call: float

def call_boxed(
    name: str, backends: list[str], args: list[tuple[str, Any]], repeat: int = 1
) -> CallOutcome: ...
def promote_types(a: int, b: int) -> int: ...
def registered_kernels() -> list[dict[str, str]]: ...
def fallback_records() -> list[tuple[str, str, str, int]]: ...
def reset_fallback_stats() -> None: ...
def missing_operators(
    requests: list[tuple[str, str]], backends: list[str]
) -> list[dict[str, object]]: ...
