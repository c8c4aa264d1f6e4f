"""bench/size_budget.py's check on synthetic sizes: which sizes pass, which fail and what the
failure says. Nothing is built."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from buildtools import REPO_ROOT


def _load_budget() -> ModuleType:
    path = REPO_ROOT / "bench" / "size_budget.py"
    spec = importlib.util.spec_from_file_location("size_budget", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it executes
    spec.loader.exec_module(module)
    return module


size_budget = _load_budget()


def _ceilings() -> dict[str, float]:
    return {budget.target: float(budget.ceiling_kib) for budget in size_budget.BUDGETS}


def test_the_sizes_users_care_about_are_budgeted() -> None:
    assert list(_ceilings()) == ["core_runtime", "add_only", "five_ops", "all_ops"]
    for budget in size_budget.BUDGETS:
        assert budget.ceiling_kib % size_budget.PAGE_KIB == 0


def test_sizes_at_or_under_their_ceilings_pass() -> None:
    sizes = _ceilings()
    sizes["add_only"] -= 0.1
    verdicts = size_budget.check(sizes)
    assert [verdict.budget.target for verdict in verdicts] == list(sizes)
    assert not any(verdict.over for verdict in verdicts)
    assert all(" ok " in verdict.line() and "OVER" not in verdict.line() for verdict in verdicts)


def test_a_size_over_its_ceiling_fails_naming_size_budget_and_remedy() -> None:
    ceiling = size_budget.budget_for("five_ops").ceiling_kib
    sizes = {**_ceilings(), "five_ops": ceiling + 2.5}
    over = [verdict for verdict in size_budget.check(sizes) if verdict.over]
    assert [verdict.budget.target for verdict in over] == ["five_ops"]
    assert "OVER" in over[0].line()
    advice = over[0].advice()
    assert advice.startswith("size budget: five_ops (")
    assert f"{ceiling + 2.5:.1f} KiB stripped" in advice
    assert f"budget of {ceiling} KiB by 2.5 KiB" in advice
    assert "bench/size.py --symbols five_ops" in advice
    assert f"bench/size_budget.py to {size_budget.ceiling_for(ceiling + 2.5)} KiB" in advice


def test_only_measured_budgeted_rows_are_checked() -> None:
    # `--only` measures some rows; rows without a budget (the add_lib demo) are not checked.
    verdicts = size_budget.check({"add_only": 1e9, "add_lib_demo": 1e9})
    assert [(verdict.budget.target, verdict.over) for verdict in verdicts] == [("add_only", True)]
    assert size_budget.check({}) == []
    assert size_budget.budget_for("add_lib_demo") is None


@pytest.mark.parametrize(
    ("size_kib", "ceiling"),
    [
        (18.2, 28),  # two pages of headroom, rounded up to a page
        (146.4, 156),
        (148.0, 156),  # exactly two pages over a page boundary
        (1857.7, 1916),  # 3% beats two pages
    ],
)
def test_ceiling_is_size_plus_headroom_in_whole_pages(size_kib: float, ceiling: int) -> None:
    assert size_budget.ceiling_for(size_kib) == ceiling
