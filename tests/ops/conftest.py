"""The backend under test: op tests take `call_op`, which is kiln.call_op bound to a backend.

`aten` is libtorch's kernel run through Kiln's ATen-mode build (-DKILN_ATEN_MODE=ON: the same
generated unboxing and registration, libtorch's tensors and kernels). On it the differential tests
check that Kiln's plumbing agrees with torch itself. Limits of the portable kernels
(dtypes Kiln lacks but torch computes) do not apply to it: those tests are skipped by name below.
Tests check a refusal's wording only on the portable backend (op_compare.raises).

Every op test runs with kiln.call_op and torch.testing.assert_close wrapped by differential_log,
which records the (operator, backend) pairs checked against torch; test_kernel_coverage.py runs
last and requires every kernel that functions.yaml declares to be among them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import differential_log
import pytest
import torch

import kiln

# Backends whose kernels the op tests run against; CI runs all. KILN_OP_TEST_BACKENDS=portable
# narrows a local run (the first aten run builds build/pytest-aten, a few minutes). On `ascend`
# the Ascend kernels (emulated) run where they take the input and the portable ones elsewhere,
# so every op test checks that choosing the backend never changes a result; the test_ascend_*
# modules check each Ascend kernel itself, with fallback disabled.
BACKENDS = os.environ.get("KILN_OP_TEST_BACKENDS", "portable,ascend,aten").split(",")

# Tests that hold only for the portable kernels (a part of their name), with the reason.
PORTABLE_ONLY = {
    "kiln_lacks": "tests dtypes the portable kernels lack and libtorch computes",
    "portable_accuracy": "tests an accuracy Kiln's kernels keep and libtorch's do not",
}


def _backend(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return None if callspec is None else callspec.params.get("call_op")


@pytest.fixture(scope="session", params=BACKENDS)
def call_op(request: pytest.FixtureRequest) -> Callable[..., Any]:
    if request.param == "aten":
        request.getfixturevalue("aten_build")  # builds kiln._C_aten and points kiln at it
    return functools.partial(differential_log.call_op, backend=request.param)


@pytest.fixture(autouse=True)
def _record_differential_checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Records what the test checks against torch (differential_log), also for tests that call
    kiln.call_op directly (the Ascend kernel checks)."""
    monkeypatch.setattr(kiln, "call_op", differential_log.call_op)
    monkeypatch.setattr(torch.testing, "assert_close", differential_log.assert_close)
    yield
    differential_log.forget_results()


OPS_DIR = Path(__file__).resolve().parent
COVERAGE_TEST = "test_kernel_coverage.py::test_every_kernel_is_checked_against_torch"
_deselected_here: list[str] = []


def pytest_deselected(items: list[pytest.Item]) -> None:
    _deselected_here.extend(i.nodeid for i in items if Path(i.path).parent == OPS_DIR)


def _selection(session: pytest.Session) -> differential_log.Selection:
    """Whether the session runs every test of tests/ops, which the coverage test needs."""
    if _deselected_here:
        return differential_log.Selection(
            False, f"{len(_deselected_here)} tests of tests/ops were deselected (-k, -m, ...)"
        )
    collected = {Path(item.path).name for item in session.items}
    files = sorted(p.name for p in OPS_DIR.glob("test_*.py") if p.name not in collected)
    if files:
        listed = ", ".join(files[:5]) + (", ..." if len(files) > 5 else "")
        return differential_log.Selection(False, f"{len(files)} files not collected ({listed})")
    here = session.config.invocation_params.dir
    narrowed = [
        arg
        for arg in session.config.args
        if "::" in arg and OPS_DIR in (here / arg.split("::")[0]).resolve().parents
    ]
    if narrowed:
        return differential_log.Selection(False, f"tests named on the command line: {narrowed}")
    return differential_log.Selection(True, backends=tuple(BACKENDS))


def pytest_collection_finish(session: pytest.Session) -> None:
    differential_log.SELECTION = _selection(session)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The coverage test judges what the op tests before it recorded: it runs last.
    last = [item for item in items if item.nodeid.endswith(COVERAGE_TEST)]
    items[:] = [item for item in items if item not in last] + last
    for item in items:
        if _backend(item) != "aten":
            continue
        name = getattr(item, "originalname", item.name)
        for pattern, reason in PORTABLE_ONLY.items():
            if pattern in name:
                item.add_marker(pytest.mark.skip(reason=f"portable only: {reason}"))
                break
