"""Plain PyTorch references for Kiln's LLM operators (custom_ops.yaml, namespace kiln), written
from vLLM's semantics (its forward_native code paths): what the kernels are checked against, and
what bench/cases/llm.py times as the composite of ATen ops."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """vLLM's RMSNorm: the mean square in float, x * rstd rounded to x's dtype, then * weight."""
    xf = x.float()
    variance = xf.pow(2).mean(-1, keepdim=True)
    return (xf * torch.rsqrt(variance + eps)).to(x.dtype) * weight


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """(rms_norm(x + residual), x + residual), the sum rounded to x's dtype first."""
    total = (x.float() + residual.float()).to(x.dtype)
    return rms_norm(total, weight, eps), total


def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    d = x.shape[-1] // 2
    return F.silu(x[..., :d]) * x[..., d:]


def gelu_and_mul(
    x: torch.Tensor, approximate: str = "none", compute: torch.dtype | None = None
) -> torch.Tensor:
    """gelu(x) * y; `compute` computes gelu in that dtype before rounding it to x's (torch's
    float32 gelu loses relative accuracy for negative x, where 1 + erf cancels)."""
    d = x.shape[-1] // 2
    gate = x[..., :d] if compute is None else x[..., :d].to(compute)
    return F.gelu(gate, approximate=approximate).to(x.dtype) * x[..., d:]


def rotary_embedding(
    positions: torch.Tensor,
    x: torch.Tensor,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
) -> torch.Tensor:
    """x [*positions.shape, heads * head_size] with its heads' first rot_dim elements rotated, in
    float, rounded once."""
    rot_dim = cos_sin_cache.shape[1]
    cos, sin = cos_sin_cache.float()[positions.long()].chunk(2, dim=-1)
    cos, sin = cos.unsqueeze(-2), sin.unsqueeze(-2)
    heads = x.reshape(*positions.shape, -1, head_size).float()
    rotated, rest = heads[..., :rot_dim], heads[..., rot_dim:]
    if is_neox:
        x1, x2 = rotated.chunk(2, dim=-1)
        rotated = torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)
    else:
        x1, x2 = rotated[..., ::2], rotated[..., 1::2]
        rotated = torch.stack((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).flatten(-2)
    return torch.cat((rotated, rest), dim=-1).to(x.dtype).reshape(x.shape)


def reshape_and_cache(
    key: torch.Tensor,
    value: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
) -> None:
    """Writes token t's key and value at slot slot_mapping[t] (skipping negative slots)."""
    heads, head_size = key_cache.shape[2], key_cache.shape[3]
    keep = slot_mapping >= 0
    slots = slot_mapping[keep].long()
    key_cache.view(-1, heads, head_size)[slots] = key.reshape(-1, heads, head_size)[keep]
    value_cache.view(-1, heads, head_size)[slots] = value.reshape(-1, heads, head_size)[keep]


def paged_attention(
    query: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    block_tables: torch.Tensor,
    context_lens: torch.Tensor,
    scale: float,
    alibi_slopes: torch.Tensor | None = None,
) -> torch.Tensor:
    """Each sequence's query heads attend to its context, gathered through its block table."""
    seqs, heads, head_size = query.shape
    block_size, kv_heads = key_cache.shape[1], key_cache.shape[2]
    out = torch.zeros(seqs, heads, head_size, dtype=torch.float32)
    for s in range(seqs):
        length = int(context_lens[s])
        if length == 0:
            continue
        tokens = torch.arange(length)
        blocks = block_tables[s].long()[tokens // block_size]
        keys = key_cache[blocks, tokens % block_size].float()  # [length, kv_heads, head_size]
        values = value_cache[blocks, tokens % block_size].float()
        keys = keys.repeat_interleave(heads // kv_heads, dim=1)
        values = values.repeat_interleave(heads // kv_heads, dim=1)
        logits = scale * torch.einsum("hd,lhd->hl", query[s].float(), keys)
        if alibi_slopes is not None:
            logits = logits + alibi_slopes[:, None] * (tokens - length + 1).float()
        out[s] = torch.einsum("hl,lhd->hd", logits.softmax(-1), values)
    return out.to(query.dtype)


def advance_step_flashattn(
    num_seqs: int,
    num_queries: int,
    block_size: int,
    input_tokens: torch.Tensor,
    sampled_token_ids: torch.Tensor,
    input_positions: torch.Tensor,
    seq_lens: torch.Tensor,
    slot_mapping: torch.Tensor,
    block_tables: torch.Tensor,
) -> None:
    """vLLM's advance_step_flashattn, one sequence at a time, in place."""
    for i in range(num_queries):
        position = int(seq_lens[i])
        input_tokens[i] = sampled_token_ids.reshape(-1)[i]
        seq_lens[i] = position + 1
        input_positions[i] = position
        block = int(block_tables[i, position // block_size])
        slot_mapping[i] = block * block_size + position % block_size
    input_tokens[num_queries:num_seqs] = 0
    input_positions[num_queries:num_seqs] = 0
    slot_mapping[num_queries:num_seqs] = -1


def weight_int8_linear(
    x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor, bias: torch.Tensor | None
) -> torch.Tensor:
    """x @ (weight * scales[:, None]).T + bias, in float64, rounded to x's dtype once."""
    result = (x.double() @ weight.double().T) * scales.double()
    if bias is not None:
        result = result + bias.double()
    return result.to(x.dtype)


def _randn(*shape: int, dtype: torch.dtype, seed: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


@dataclass(frozen=True)
class LlamaAttention:
    """A case of ExecuTorch's llama::custom_sdpa: query [batch, queries, heads, dim] at positions
    start_pos.. over a key/value cache [batch, positions, kv_heads, dim]; with `masked`, an
    additive [queries, positions] mask (-inf in about 3 of 10 places, and in a whole row with
    `masked_row`: its output is zeros)."""

    batch: int = 1
    queries: int = 1
    heads: int = 4
    kv_heads: int = 2
    dim: int = 32
    positions: int = 16
    start_pos: int = 0
    causal: bool = True
    masked: bool = False
    scale: float | None = None
    masked_row: bool = False

    def tensors(
        self, dtype: torch.dtype
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None]:
        seed = hash(self) % 1000
        query = _randn(self.batch, self.queries, self.heads, self.dim, dtype=dtype, seed=seed)
        cache = (self.batch, self.positions, self.kv_heads, self.dim)
        key = _randn(*cache, dtype=dtype, seed=seed + 1)
        value = _randn(*cache, dtype=dtype, seed=seed + 2)
        mask = None
        if self.masked:
            generator = torch.Generator().manual_seed(seed + 3)
            mask = torch.randn(self.queries, self.positions, generator=generator)
            mask[torch.rand(mask.shape, generator=generator) < 0.3] = float("-inf")
            if self.masked_row:
                mask[self.queries // 2] = float("-inf")
        return query, key, value, mask

    def arguments(self, dtype: torch.dtype) -> tuple[Any, ...]:
        """custom_sdpa's arguments: query, key, value, start_pos, mask, dropout_p, causal, scale."""
        query, key, value, mask = self.tensors(dtype)
        return (query, key, value, self.start_pos, mask, 0.0, self.causal, self.scale)


def llama_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    start_pos: int,
    mask: torch.Tensor | None,
    dropout_p: float,
    causal: bool,
    scale: float | None,
) -> torch.Tensor:
    """custom_sdpa's rule in float64, rounded once to query's dtype, from its arguments: row i
    sees positions [0, start_pos + i] (causal) or [0, start_pos + queries), or the mask's whole
    cache; grouped-query heads share their key/value head; a fully masked row gives zeros."""
    assert dropout_p == 0.0
    queries, heads, dim = query.shape[1:]
    group = heads // key.shape[2]
    length = key.shape[1] if mask is not None else start_pos + queries
    keys = key[:, :length].double().repeat_interleave(group, 2)
    values = value[:, :length].double().repeat_interleave(group, 2)
    logits = torch.einsum("bshd,bthd->bhst", query.double(), keys)
    logits = logits * (scale if scale is not None else dim**-0.5)
    if mask is not None:
        logits = logits + mask.double()
    elif causal:
        rows = torch.arange(queries).unsqueeze(1) + start_pos
        logits = logits.masked_fill(torch.arange(length).unsqueeze(0) > rows, float("-inf"))
    weights = torch.softmax(logits, -1).nan_to_num(0.0)
    return torch.einsum("bhst,bthd->bshd", weights, values).to(query.dtype)
