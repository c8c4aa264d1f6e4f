"""The size budget: a ceiling on each stripped size users care about, checked by bench/size.py.

Each ceiling is the size measured when the budget was set plus headroom (`ceiling_for`): 3% of
the size, at least two 4 KiB pages, rounded up to a whole page. The binaries grow in pages (the
linker gives code, read-only data and headers segments of their own), so a ceiling closer than
two pages would fail on layout alone. docs/selective_build.md says what to do when a size is over.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

PAGE_KIB = 4
HEADROOM_FRACTION = 0.03
MIN_HEADROOM_KIB = 2 * PAGE_KIB


@dataclass(frozen=True)
class Budget:
    """The most one bench/size.py target may weigh, stripped."""

    target: str  # a bench/size.py target
    what: str  # the binary, as a user would name it
    ceiling_kib: int


# Set by ceiling_for from the sizes measured at commit 1262d5d (docs/performance.md, "Binary
# sizes").
BUDGETS: tuple[Budget, ...] = (
    Budget("core_runtime", "the runtime alone", 28),
    Budget("add_only", "add only, every dtype", 84),
    Budget("five_ops", "add, relu, _softmax, mm, convolution, every dtype", 164),
    Budget("all_ops", "every operator, INCLUDE_ALL_OPS", 1964),
)


def ceiling_for(size_kib: float) -> int:
    """The ceiling a budget set today at `size_kib` gets: the size plus headroom, in whole pages."""
    headroom = max(size_kib * HEADROOM_FRACTION, MIN_HEADROOM_KIB)
    return math.ceil((size_kib + headroom) / PAGE_KIB) * PAGE_KIB


@dataclass(frozen=True)
class Verdict:
    """One measured size against its budget."""

    budget: Budget
    size_kib: float

    @property
    def over(self) -> bool:
        return self.size_kib > self.budget.ceiling_kib

    def line(self) -> str:
        state = "OVER" if self.over else "ok"
        left = self.budget.ceiling_kib - self.size_kib
        return (
            f"{self.budget.target:14} {self.size_kib:9.1f} KiB of {self.budget.ceiling_kib:5d} KiB"
            f" ({left:+.1f} KiB left) {state:4}  {self.budget.what}"
        )

    def advice(self) -> str:
        """What to do about a size over its budget."""
        target = self.budget.target
        return (
            f"size budget: {target} ({self.budget.what}) is {self.size_kib:.1f} KiB stripped, "
            f"over its budget of {self.budget.ceiling_kib} KiB by "
            f"{self.size_kib - self.budget.ceiling_kib:.1f} KiB. Find what grew with "
            f"`python bench/size.py --symbols {target}` against the same on the parent commit, "
            f"and make the change pay for its bytes. If the growth buys something measured to be "
            f"worth it (bench/kernels.py), raise the ceiling in bench/size_budget.py to "
            f"{ceiling_for(self.size_kib)} KiB (today's size plus headroom) in the same commit "
            f"and record why in docs/performance.md."
        )


def budget_for(target: str) -> Budget | None:
    return next((budget for budget in BUDGETS if budget.target == target), None)


def check(sizes_kib: Mapping[str, float]) -> list[Verdict]:
    """The verdict on each measured target that has a budget, in the budget's order."""
    return [
        Verdict(budget, sizes_kib[budget.target])
        for budget in BUDGETS
        if budget.target in sizes_kib
    ]
