"""The session's record of differential checks, read by test_kernel_coverage.py.

An (operator, backend) pair counts as checked when a kernel of that backend ran the operator and
its result then passed a comparison through torch.testing.assert_close (which
op_compare.assert_same, and so check_op and the other checkers, use). conftest.py wraps
kiln.call_op and torch.testing.assert_close with the functions here around every op test.

A call on backend "ascend" that fell back to the portable kernel counts for "portable": the
backend is the one that served the call, read from kiln's fallback records. The registry keeps a
fixed number of those records, so each recorded call starts from reset fallback statistics; a
test reading kiln.fallback_records() sees those of its last call (ascend_checks.check_declines
resets them before its call anyway).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

import kiln
from kiln._manifest import operators
from kiln.codegen.model.op_names import qualified

# The originals, taken before conftest.py wraps them.
_CALL_OP: Callable[..., Any] = kiln.call_op
_ASSERT_CLOSE: Callable[..., None] = torch.testing.assert_close

# (qualified operator, backend) pairs compared with torch in this session.
CHECKED: set[tuple[str, str]] = set()

# Results of the running test's calls, by id: a weak reference (to tell a reused id) and the
# (operator, backend) that wrote them. Cleared after each test.
_results: dict[int, tuple[weakref.ref[torch.Tensor], tuple[str, str]]] = {}


@dataclass(frozen=True)
class Selection:
    """Whether the session runs the whole of tests/ops (if not, why not), on which backends."""

    whole: bool
    reason: str = ""
    backends: tuple[str, ...] = ()


# Set by conftest.py once collection is final.
SELECTION = Selection(False, "the session's collection was not examined")


def _served_by(name: str, requested: str) -> str:
    """The backend that served the last call, made after a reset of the fallback statistics."""
    fallbacks = [
        s for op, asked, s, _, _ in kiln.fallback_records() if (op, asked) == (name, requested)
    ]
    return fallbacks[0] if fallbacks else requested


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors(item)]
    return []


def _written_inputs(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[torch.Tensor]:
    """The tensors passed for arguments the schema marks written that are no out arguments (a KV
    cache): the op's results too, though it does not return them."""
    operator = operators().get(op)
    if operator is None:
        return []
    outs = {a.name for a in operator.outs}
    written = set(re.findall(r"Tensor\(\w+!\)\s+(\w+)", operator.schema)) - outs
    positional = [a.name for a in operator.inputs if not a.kwarg_only]
    bound = {**dict(zip(positional, args, strict=False)), **kwargs}
    return [bound[name] for name in sorted(written) if isinstance(bound.get(name), torch.Tensor)]


def call_op(name: str, *args: Any, backend: str | None = None, **kwargs: Any) -> Any:
    """kiln.call_op, remembering which (operator, backend) wrote each result tensor (written
    inputs included)."""
    op = qualified(name)
    requested = backend or "portable"
    if requested != "aten":  # libtorch's kernels run without Kiln's backend fallback
        kiln.reset_fallback_stats()
    result = _CALL_OP(name, *args, backend=backend, **kwargs)
    served = requested if requested == "aten" else _served_by(op, requested)
    written = _tensors(result) + _tensors(kwargs.get("out")) + _written_inputs(op, args, kwargs)
    for tensor in written:
        _results[id(tensor)] = (weakref.ref(tensor), (op, served))
    return result


def _writer(value: Any) -> tuple[str, str] | None:
    entry = _results.get(id(value))
    if entry is None or entry[0]() is not value:
        return None
    return entry[1]


def assert_close(actual: Any, expected: Any, *args: Any, **kwargs: Any) -> None:
    """torch.testing.assert_close; when it passes on a result of call_op, records that result's
    (operator, backend) as checked."""
    _ASSERT_CLOSE(actual, expected, *args, **kwargs)
    for tensor in _tensors(actual) + _tensors(expected):
        writer = _writer(tensor)
        if writer is not None:
            CHECKED.add(writer)


def forget_results() -> None:
    """Ends a test: its results no longer count."""
    _results.clear()
