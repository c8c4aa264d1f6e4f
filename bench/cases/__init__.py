"""Benchmark cases, one module per op family; each defines cases() -> list[Case]."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class Case:
    label: str
    op: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    out_dtypes: tuple[torch.dtype, ...] = (torch.float32,)  # one per out argument
    # False for random ops, whose values Kiln and ATen draw from different generators: only the
    # outs' shapes are compared.
    deterministic: bool = True
    # For an operator ATen lacks (Kiln's own): the plain PyTorch composite of ATen ops it is timed
    # against, returning the outs' values (new tensors; writing them into outs would time a copy).
    composite: Callable[..., Any] | None = None

    def _overload(self) -> Any:
        base, overload = self.op.removeprefix("aten::").split(".")
        return getattr(getattr(torch.ops.aten, base), overload)

    def empty_outs(self) -> tuple[torch.Tensor, ...]:
        return tuple(torch.empty(0, dtype=dtype) for dtype in self.out_dtypes)

    def aten(self, outs: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
        """Runs ATen's kernel for the same op, writing into `outs` (in schema order); or the
        composite, returning its results."""
        if self.composite is not None:
            result = self.composite(*self.args, **self.kwargs)
            return tuple(result) if isinstance(result, (tuple, list)) else (result,)
        overload = self._overload()
        names = [a.name for a in overload._schema.arguments if a.is_out]
        result = overload(*self.args, **self.kwargs, **dict(zip(names, outs, strict=True)))
        return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def all_cases(family: str | None = None) -> list[Case]:
    """Every family's cases (or one family's), families in name order."""
    found: list[Case] = []
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        if family is not None and module != family:
            continue
        found += importlib.import_module(f"{__name__}.{module}").cases()
    return found
