"""Tests of kiln.torch_ops: Kiln's operators registered with torch.library, in eager PyTorch,
under fake tensors, through torch.export / kiln.export / kiln.load, and with autograd. They reuse
the plain PyTorch references of the op tests (tests/ops/llm_reference.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))

import kiln.torch_ops  # noqa: E402  (after the path that the references need)


@pytest.fixture(params=["portable", "ascend"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """The backend the registered operators' CPU kernels run on during the test."""
    with kiln.torch_ops.use_backend(request.param):
        yield request.param
