"""Small inputs for each of Kiln's LLM operators, shared by the kiln.torch_ops tests."""

from __future__ import annotations

import torch

HEAD_SIZE = 16
BLOCK_SIZE = 4


def randn(*shape: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator).to(dtype)


def cos_sin_cache(max_position: int, rot_dim: int) -> torch.Tensor:
    inverse = 1.0 / (10000 ** (torch.arange(0, rot_dim, 2).float() / rot_dim))
    angles = torch.arange(max_position).float()[:, None] * inverse[None, :]
    return torch.cat((angles.cos(), angles.sin()), dim=-1)


def paged(
    lengths: list[int],
    heads: int = 4,
    kv_heads: int = 2,
    dtype: torch.dtype = torch.float32,
    paged_layout: bool = False,
) -> tuple[torch.Tensor, ...]:
    """query, key_cache, value_cache, block_tables, context_lens for sequences of `lengths`;
    flash caches, or with `paged_layout` the same ones in vLLM's paged layout."""
    width = max(1, max((n + BLOCK_SIZE - 1) // BLOCK_SIZE for n in lengths))
    blocks = len(lengths) * width + 1
    shape = (blocks, BLOCK_SIZE, kv_heads, HEAD_SIZE)
    key_cache, value_cache = randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)
    tables = torch.randperm(blocks, generator=torch.Generator().manual_seed(3))[
        : len(lengths) * width
    ]
    query = randn(len(lengths), heads, HEAD_SIZE, dtype=dtype, seed=4)
    if paged_layout:
        x = 16 // key_cache.element_size()
        key_cache = key_cache.reshape(blocks, BLOCK_SIZE, kv_heads, HEAD_SIZE // x, x)
        key_cache = key_cache.permute(0, 2, 3, 1, 4).contiguous()
        value_cache = value_cache.permute(0, 2, 3, 1).contiguous()
    return (
        query,
        key_cache,
        value_cache,
        tables.reshape(len(lengths), width).int(),
        torch.tensor(lengths, dtype=torch.int32),
    )


def int8_linear(tokens: int, inputs: int, outputs: int) -> tuple[torch.Tensor, ...]:
    """input, int8 weight, per-channel scales, bias."""
    generator = torch.Generator().manual_seed(5)
    weight = torch.randint(-127, 128, (outputs, inputs), generator=generator, dtype=torch.int8)
    return randn(tokens, inputs), weight, randn(outputs, seed=6).abs() / 64, randn(outputs, seed=7)
