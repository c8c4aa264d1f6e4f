"""The backend under test: op tests take `call_op`, which is kiln.call_op bound to a backend.

`aten` is libtorch's kernel run through Kiln's ATen-mode build (-DKILN_ATEN_MODE=ON: the same
generated unboxing and registration, libtorch's tensors and kernels). On it the differential tests
check that Kiln's plumbing agrees with torch itself. Limits of the portable kernels
(dtypes Kiln lacks but torch computes) do not apply to it: those tests are skipped by name below.
Tests check a refusal's wording only on the portable backend (op_compare.raises).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

import pytest

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
}


def _backend(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return None if callspec is None else callspec.params.get("call_op")


@pytest.fixture(scope="session", params=BACKENDS)
def call_op(request: pytest.FixtureRequest) -> Callable[..., Any]:
    if request.param == "aten":
        request.getfixturevalue("aten_build")  # builds kiln._C_aten and points kiln at it
    return functools.partial(kiln.call_op, backend=request.param)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _backend(item) != "aten":
            continue
        name = getattr(item, "originalname", item.name)
        for pattern, reason in PORTABLE_ONLY.items():
            if pattern in name:
                item.add_marker(pytest.mark.skip(reason=f"portable only: {reason}"))
                break
