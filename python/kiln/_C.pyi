"""Types of the native extension (python/src/module.cpp)."""

from collections.abc import Callable
from typing import Any

class CallOutcome:
    error: str
    message: str
    backend: str
    ns_per_call: float
    results: list[tuple[tuple[int, ...], tuple[int, ...], int, bytes] | None]

def call_boxed(
    name: str,
    backends: list[str],
    args: list[tuple[str, Any]],
    repeat: int = 1,
    allow_fallback: bool = True,
    new_results: int = 0,
) -> CallOutcome: ...

class BoundOperator:
    """An operator's schema bound once for kiln.call_op (python/src/bound_operator.h)."""

    name: str
    def __call__(
        self, args: tuple[Any, ...], out: Any, kwargs: dict[str, Any], allow_fallback: bool, /
    ) -> Any: ...

def bind_operator(
    name: str,
    arguments: list[tuple[str, str, bool, bool, Any, bool]],
    returns: list[int],
    return_slots: int,
    backends: list[str],
    new_tensor: Callable[[Any], Any],
    error_type: type[Exception],
) -> BoundOperator: ...
def backends() -> list[str]: ...
def promote_types(a: int, b: int) -> int: ...
def registered_kernels() -> list[dict[str, str]]: ...
def fallback_records() -> list[tuple[str, str, str, int, str]]: ...
def reset_fallback_stats() -> None: ...
def set_random_seed(seed: int) -> None: ...
def missing_operators(
    requests: list[tuple[str, str]], backends: list[str]
) -> list[dict[str, object]]: ...
def ascend_soc() -> str: ...
def ascend_set_soc(name: str) -> None: ...
def ascend_set_seed(seed: int) -> None: ...
def ascend_launch_history() -> list[dict[str, Any]]: ...
def ascend_clear_launch_history() -> None: ...
