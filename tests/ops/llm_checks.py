"""Helpers shared by the LLM operator tests (test_llm_*.py): dtypes, tolerances, inputs."""

from __future__ import annotations

import torch
from op_compare import assert_same

# The activation dtypes of Kiln's LLM operators.
LLM_DTYPES = [torch.float32, torch.float16, torch.bfloat16]

# One unit in the last place of each dtype, for results that round once more or less than the
# reference (vLLM rounds intermediate values to the dtype).
ULP = {torch.float32: 2e-6, torch.float16: 1e-3, torch.bfloat16: 8e-3}


def randn(*shape: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator).to(dtype)


def assert_near(actual: torch.Tensor, expected: torch.Tensor, ulps: float = 2.0) -> None:
    """Same dtype and shape; values within `ulps` units of the dtype's precision (relative and
    absolute), as differential checks against torch record them."""
    tolerance = ulps * ULP[expected.dtype] if expected.dtype in ULP else 0.0
    assert_same(actual, expected, atol=tolerance, tolerances={expected.dtype: (tolerance, 0.0)})
