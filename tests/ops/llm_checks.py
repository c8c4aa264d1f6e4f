"""Helpers shared by the LLM operator tests (test_llm_*.py): dtypes, tolerances, inputs."""

from __future__ import annotations

import llm_reference as ref
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


def caches(
    blocks: int, block_size: int, kv_heads: int, head_size: int, dtype: torch.dtype, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random flash caches [blocks, block_size, kv_heads, head_size]."""
    shape = (blocks, block_size, kv_heads, head_size)
    return randn(*shape, dtype=dtype, seed=seed), randn(*shape, dtype=dtype, seed=seed + 1)


def paged_inputs(
    lengths: list[int],
    block_size: int,
    heads: int,
    kv_heads: int,
    head_size: int,
    dtype: torch.dtype,
    seed: int,
    paged: bool = False,
) -> tuple[torch.Tensor, ...]:
    """paged_attention's tensor inputs: a query per sequence, caches with a few spare blocks
    (vLLM's paged layout when `paged`, else flash), shuffled block tables, context lengths."""
    max_blocks = max(1, max((n + block_size - 1) // block_size for n in lengths))
    blocks = len(lengths) * max_blocks + 3
    key_cache, value_cache = caches(blocks, block_size, kv_heads, head_size, dtype, seed)
    if paged:
        key_cache, value_cache = ref.paged_caches(key_cache, value_cache)
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(blocks, generator=generator)[: len(lengths) * max_blocks]
    block_tables = order.reshape(len(lengths), max_blocks).to(torch.int32)
    query = randn(len(lengths), heads, head_size, dtype=dtype, seed=seed + 2)
    context_lens = torch.tensor(lengths, dtype=torch.int32)
    return query, key_cache, value_cache, block_tables, context_lens
