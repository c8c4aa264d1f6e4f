"""Registry queries: what is registered, what is missing, and which calls fell back."""

from __future__ import annotations

from kiln import _C
from kiln.codegen.model.op_names import qualified


def registered_operators() -> list[dict[str, str]]:
    """Every registered kernel: name, backend, key ("default" or v1/...) and origin yaml:line."""
    return list(_C.registered_kernels())


def fallback_records() -> list[tuple[str, str, str, int, str]]:
    """(operator, requested backend, backend that ran it, count, reason) for each fallback seen.

    The reason is the first declining kernel's message (e.g. a dtype the Ascend kernel cannot
    take), or "no kernel" when the requested backend has no kernel for the operator."""
    return list(_C.fallback_records())


def reset_fallback_stats() -> None:
    _C.reset_fallback_stats()


def missing_operators(
    ops: list[str | tuple[str, str]], backend: str | None = None
) -> list[dict[str, object]]:
    """The runtime's report for the ops (names, or (name, kernel key) pairs) it cannot run.

    Each entry: index (into `ops`), op, key ("default" when none was given), backends_searched
    and cause ("not registered", "no kernel for the searched backends", "no kernel for this
    kernel key"). The same lines are logged as "Missing operator: [i] ns::op.overload ...".
    """
    from kiln._call import backends_for

    requests = [(op, "") if isinstance(op, str) else op for op in ops]
    named = [(qualified(name), key) for name, key in requests]
    return list(_C.missing_operators(named, backends_for(backend)))
