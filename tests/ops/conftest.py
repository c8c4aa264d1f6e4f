"""The backend under test: op tests take `call_op`, which is kiln.call_op bound to a backend."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

import kiln

# Backends whose kernels the op tests run against.
BACKENDS = ["portable"]


@pytest.fixture(scope="session", params=BACKENDS)
def call_op(request: pytest.FixtureRequest) -> Callable[..., Any]:
    return functools.partial(kiln.call_op, backend=request.param)
