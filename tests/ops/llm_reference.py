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


def cache_x(dtype: torch.dtype) -> int:
    """vLLM's x: the elements of `dtype` in 16 bytes, the width of a paged key cache's chunks."""
    return 16 // torch.tensor([], dtype=dtype).element_size()


def reshape_and_cache(
    key: torch.Tensor,
    value: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
) -> None:
    """Writes token t's key and value at slot slot_mapping[t] (skipping negative slots) of flash
    caches [num_blocks, block_size, num_kv_heads, head_size]; rows of key and value past
    slot_mapping's are padding."""
    heads, head_size = key_cache.shape[2], key_cache.shape[3]
    tokens = slot_mapping.shape[0]
    keep = slot_mapping >= 0
    slots = slot_mapping[keep].long()
    key_cache.view(-1, heads, head_size)[slots] = key[:tokens].reshape(-1, heads, head_size)[keep]
    value_cache.view(-1, heads, head_size)[slots] = value[:tokens].reshape(-1, heads, head_size)[
        keep
    ]


def reshape_and_cache_paged(
    key: torch.Tensor,
    value: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
) -> None:
    """vLLM's reshape_and_cache, token by token: for t < slot_mapping.size(0) with slot s >= 0,
    block s // block_size and offset s % block_size, key_cache[block, h, d // x, offset, d % x]
    = key[t, h, d] and value_cache[block, h, d, offset] = value[t, h, d]."""
    _, heads, head_size, block_size = value_cache.shape
    x = key_cache.shape[4]
    for t, slot in enumerate(slot_mapping.tolist()):
        if slot < 0:
            continue
        block, offset = divmod(slot, block_size)
        rows_k = key[t].reshape(heads, head_size)
        rows_v = value[t].reshape(heads, head_size)
        for h in range(heads):
            for d in range(0, head_size, x):
                key_cache[block, h, d // x, offset, :] = rows_k[h, d : d + x]
            value_cache[block, h, :, offset] = rows_v[h]


def paged_caches(
    key_cache: torch.Tensor, value_cache: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Flash caches [num_blocks, block_size, num_kv_heads, head_size] in vLLM's paged layout:
    key_cache [num_blocks, num_kv_heads, head_size / x, block_size, x], value_cache [num_blocks,
    num_kv_heads, head_size, block_size]."""
    blocks, block_size, heads, head_size = key_cache.shape
    x = cache_x(key_cache.dtype)
    key = key_cache.reshape(blocks, block_size, heads, head_size // x, x).permute(0, 2, 3, 1, 4)
    return key.contiguous(), value_cache.permute(0, 2, 3, 1).contiguous()


# vLLM's PARTITION_SIZE for paged_attention_v2.
PARTITION = 512


def _partitioned_softmax(logits: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """vLLM's paged_attention_v2 over logits [heads, length] and values [length, heads, d]: per
    partition of PARTITION tokens its maximum, sum of exponentials and normalised result, then
    those results weighted by their sums rescaled to the largest maximum, over their total."""
    maxima, sums, partials = [], [], []
    for start in range(0, logits.shape[1], PARTITION):
        part = logits[:, start : start + PARTITION]
        maximum = part.amax(-1, keepdim=True)
        weights = (part - maximum).exp()
        total = weights.sum(-1, keepdim=True)
        partials.append(
            torch.einsum("hl,lhd->hd", weights / total, values[start : start + PARTITION])
        )
        maxima.append(maximum)
        sums.append(total)
    largest = torch.cat(maxima, -1).amax(-1, keepdim=True)
    rescaled = [
        total * (maximum - largest).exp() for total, maximum in zip(sums, maxima, strict=True)
    ]
    combined = sum(r * p for r, p in zip(rescaled, partials, strict=True))
    assert isinstance(combined, torch.Tensor)
    return combined / sum(rescaled)


def paged_attention(
    query: torch.Tensor,
    key_cache: torch.Tensor,
    value_cache: torch.Tensor,
    block_tables: torch.Tensor,
    context_lens: torch.Tensor,
    scale: float,
    alibi_slopes: torch.Tensor | None = None,
    compute: torch.dtype = torch.float32,
) -> torch.Tensor:
    """Each sequence's query heads attend to its context, gathered through its block table from
    flash caches (4-dim key_cache) or paged ones (5-dim); in `compute`, rounded once. A context
    longer than one partition takes vLLM's v2 route (_partitioned_softmax)."""
    seqs, heads, head_size = query.shape
    paged = key_cache.dim() == 5
    block_size = key_cache.shape[3] if paged else key_cache.shape[1]
    kv_heads = key_cache.shape[1] if paged else key_cache.shape[2]
    out = torch.zeros(seqs, heads, head_size, dtype=compute)
    for s in range(seqs):
        length = int(context_lens[s])
        if length == 0:
            continue
        tokens = torch.arange(length)
        blocks = block_tables[s].long()[tokens // block_size]
        offsets = tokens % block_size
        if paged:  # [length, kv_heads, head_size / x, x] and [length, kv_heads, head_size]
            keys = key_cache[blocks, :, :, offsets, :].reshape(length, kv_heads, head_size)
            values = value_cache[blocks, :, :, offsets]
        else:
            keys, values = key_cache[blocks, offsets], value_cache[blocks, offsets]
        keys = keys.to(compute).repeat_interleave(heads // kv_heads, dim=1)
        values = values.to(compute).repeat_interleave(heads // kv_heads, dim=1)
        logits = scale * torch.einsum("hd,lhd->hl", query[s].to(compute), keys)
        if alibi_slopes is not None:
            logits = logits + alibi_slopes.to(compute)[:, None] * (tokens - length + 1).to(compute)
        if length > PARTITION:
            out[s] = _partitioned_softmax(logits, values)
        else:
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
