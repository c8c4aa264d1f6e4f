"""Plain PyTorch references for Kiln's LLM operators (custom_ops.yaml, namespace kiln), written
from vLLM's semantics (its forward_native code paths): what the kernels are checked against, and
what bench/cases/llm.py times as the composite of ATen ops."""

from __future__ import annotations

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
