"""Strided torch tensors for kernels that read dense memory: one contiguous copy per argument,
and a copy back for each argument the operator writes. Arguments that kernels take as row views
(kiln._row_views) are handed over as they are; so are contiguous and channels-last tensors.

Every copy is counted by operator (kiln.strided_copies()), so a caller can see what a strided
argument costs and pass a contiguous tensor where it matters."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import torch

from kiln._convert import dense_dim_order
from kiln._errors import KilnError
from kiln._row_views import is_row_view

_copies: Counter[str] = Counter()


def strided_copies() -> dict[str, int]:
    """How many arguments of each operator kiln.call_op and torch.ops.kiln copied to contiguous
    memory because the kernel reads dense tensors (see docs/python.md, "Strided tensors")."""
    return dict(_copies)


def reset_strided_copies() -> None:
    _copies.clear()


def _overlaps_itself(value: torch.Tensor) -> bool:
    # torch's own test for a tensor some of whose elements share memory (0: no, 1: yes, 2: too
    # hard to tell, which torch treats as no).
    return value.layout == torch.strided and torch._debug_has_internal_overlap(value) == 1


def _needs_copy(value: Any, row_view: bool) -> bool:
    if not isinstance(value, torch.Tensor) or value.device.type != "cpu":
        return False  # not a tensor kiln views: the conversion explains the refusal
    if value.layout != torch.strided or value.is_quantized or dense_dim_order(value) is not None:
        return False
    return not (row_view and is_row_view(value))


@dataclass
class DenseCopies:
    """The copies one call made: (caller's tensor, its dense copy) for each written argument."""

    op: str
    written: list[tuple[torch.Tensor, torch.Tensor]] = field(default_factory=list)

    def argument(self, value: Any, row_view: bool, is_written: bool) -> Any:
        """`value`, or a dense copy of it when a kernel could not view it (items of a list
        too)."""
        if isinstance(value, (list, tuple)):
            return [self.argument(item, False, is_written) for item in value]
        if is_written and isinstance(value, torch.Tensor) and _overlaps_itself(value):
            raise KilnError(
                f"{self.op}: unsupported operation: more than one element of the written-to "
                "tensor refers to a single memory location (an expanded view); pass a tensor "
                "you can write, e.g. clone() it",
                "InvalidArgument",
            )
        if not _needs_copy(value, row_view):
            return value
        try:
            copy = value.contiguous()
        except RuntimeError as error:  # an expanded view of more elements than memory holds
            raise KilnError(
                f"{self.op}: a dense copy of a strided argument ({value.numel()} elements of "
                f"{value.dtype}) could not be allocated ({str(error).splitlines()[0]}); pass a "
                "contiguous tensor",
                "MemoryAllocationFailed",
            ) from None
        _copies[self.op] += 1
        if is_written:
            self.written.append((value, copy))
        return copy

    def write_back(self) -> None:
        """Copies what the kernel wrote into the caller's tensors (resized as the copy was)."""
        for original, copy in self.written:
            if original.shape != copy.shape:
                original.resize_(copy.shape)
            original.copy_(copy)
