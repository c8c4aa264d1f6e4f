"""Benchmark cases, one module per op family; each defines cases() -> list[Case]."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class Case:
    label: str
    op: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]

    def aten(self, out: torch.Tensor) -> Any:
        """Runs ATen's kernel for the same op, writing into `out`."""
        base, overload = self.op.removeprefix("aten::").split(".")
        packet = getattr(torch.ops.aten, base)
        return getattr(packet, overload)(*self.args, **self.kwargs, out=out)


def all_cases(family: str | None = None) -> list[Case]:
    """Every family's cases (or one family's), families in name order."""
    found: list[Case] = []
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        if family is not None and module != family:
            continue
        found += importlib.import_module(f"{__name__}.{module}").cases()
    return found
