"""Kiln's LLM operators (namespace kiln) against the plain PyTorch composites of ATen ops that
they fuse (tests/ops/llm_reference.py, vLLM's native code paths), at Llama-7B shapes: hidden
4096, 32 heads of 128, intermediate 11008, block size 16; float32, and BFloat16 for the four
fused ops. Issue 15's goal: the fused ops
(rms_norm, fused_add_rms_norm, silu_and_mul, rotary_embedding) at <= 0.5x the composite's time."""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from cases import Case

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "ops"))
import llm_reference as ref  # noqa: E402

F32 = torch.float32
TOKENS = 64
HIDDEN = 4096
HEADS = 32
HEAD_SIZE = 128
BLOCK_SIZE = 16


def _rotary(
    positions: torch.Tensor,
    q: torch.Tensor,
    k: torch.Tensor,
    head_size: int,
    cache: torch.Tensor,
    neox: bool,
) -> tuple[torch.Tensor, torch.Tensor]:
    return (
        ref.rotary_embedding(positions, q, head_size, cache, neox),
        ref.rotary_embedding(positions, k, head_size, cache, neox),
    )


def _int8_linear(
    x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor, bias: None
) -> torch.Tensor:
    """What eager PyTorch does without the fused op: dequantise, then linear."""
    return torch.nn.functional.linear(x, weight.to(x.dtype) * scales[:, None], bias)


def _custom_sdpa(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    start_pos: int,
    mask: None,
    dropout_p: float,
    causal: bool,
    scale: None,
) -> torch.Tensor:
    """llama::custom_sdpa in eager PyTorch: torch's attention over the cache's first
    start_pos + S positions (causal when the query starts the sequence)."""
    length = start_pos + q.shape[1]
    out = torch.nn.functional.scaled_dot_product_attention(
        q.transpose(1, 2),
        k[:, :length].transpose(1, 2),
        v[:, :length].transpose(1, 2),
        is_causal=causal and start_pos == 0,
        enable_gqa=True,
    )
    return out.transpose(1, 2)


def _llama_sdpa_cases() -> list[Case]:
    """ExecuTorch's llama::custom_sdpa over a [1, 2048, 8, 128] cache with 32 query heads: a decode
    step at position 1000 and a 128-token causal prefill."""
    cache = (1, 2048, 8, HEAD_SIZE)
    k, v = torch.randn(cache), torch.randn(cache)
    decode_q = torch.randn(1, 1, HEADS, HEAD_SIZE)
    prefill_q = torch.randn(1, 128, HEADS, HEAD_SIZE)
    return [
        Case(
            "llama custom_sdpa decode at 1000",
            "llama::custom_sdpa.out",
            (decode_q, k, v, 1000, None, 0.0, False, None),
            {},
            composite=_custom_sdpa,
        ),
        Case(
            "llama custom_sdpa prefill 128",
            "llama::custom_sdpa.out",
            (prefill_q, k, v, 0, None, 0.0, True, None),
            {},
            composite=_custom_sdpa,
        ),
    ]


def _paged_inputs() -> tuple[torch.Tensor, ...]:
    """8 sequences of 500..1000 tokens, 8 kv heads, blocks shuffled in the cache."""
    seqs, kv_heads = 8, 8
    lengths = torch.randint(500, 1000, (seqs,), dtype=torch.int32)
    max_blocks = 1000 // BLOCK_SIZE + 1
    blocks = seqs * max_blocks
    cache_shape = (blocks, BLOCK_SIZE, kv_heads, HEAD_SIZE)
    tables = torch.randperm(blocks).reshape(seqs, max_blocks).to(torch.int32)
    query = torch.randn(seqs, HEADS, HEAD_SIZE)
    return query, torch.randn(cache_shape), torch.randn(cache_shape), tables, lengths


def _long_context_inputs() -> tuple[torch.Tensor, ...]:
    """One sequence of 8000 tokens (16 of paged attention v2's partitions), 8 kv heads."""
    kv_heads, length = 8, 8000
    blocks = length // BLOCK_SIZE
    cache_shape = (blocks, BLOCK_SIZE, kv_heads, HEAD_SIZE)
    tables = torch.randperm(blocks).reshape(1, blocks).to(torch.int32)
    lengths = torch.tensor([length], dtype=torch.int32)
    query = torch.randn(1, HEADS, HEAD_SIZE)
    return query, torch.randn(cache_shape), torch.randn(cache_shape), tables, lengths


def _bf16_cases(
    x: torch.Tensor,
    residual: torch.Tensor,
    w: torch.Tensor,
    gate_up: torch.Tensor,
    positions: torch.Tensor,
    q: torch.Tensor,
    k: torch.Tensor,
    cache: torch.Tensor,
) -> list[Case]:
    """The four fused ops again on BFloat16 activations, the dtype LLMs are served in."""
    bf16 = torch.bfloat16
    x, residual, w, gate_up = (t.to(bf16) for t in (x, residual, w, gate_up))
    q, k, cache = (t.to(bf16) for t in (q, k, cache))
    return [
        Case(
            "rms_norm bf16", "kiln::rms_norm.out", (x, w, 1e-6), {}, (bf16,), composite=ref.rms_norm
        ),
        Case(
            "fused_add_rms_norm bf16",
            "kiln::fused_add_rms_norm.out",
            (x, residual, w, 1e-6),
            {},
            (bf16, bf16),
            composite=ref.fused_add_rms_norm,
        ),
        Case(
            "silu_and_mul bf16",
            "kiln::silu_and_mul.out",
            (gate_up,),
            {},
            (bf16,),
            composite=ref.silu_and_mul,
        ),
        Case(
            "rotary neox bf16",
            "kiln::rotary_embedding.out",
            (positions, q, k, HEAD_SIZE, cache, True),
            {},
            (bf16, bf16),
            composite=_rotary,
        ),
    ]


def cases() -> list[Case]:
    torch.manual_seed(0)
    x = torch.randn(TOKENS, HIDDEN)
    residual = torch.randn(TOKENS, HIDDEN)
    w = torch.randn(HIDDEN)
    gate_up = torch.randn(TOKENS, 2 * 11008)
    positions = torch.randint(0, 4096, (TOKENS,))
    inv_freq = 1.0 / (10000 ** (torch.arange(0, HEAD_SIZE, 2, dtype=F32) / HEAD_SIZE))
    freqs = torch.arange(4096, dtype=F32)[:, None] * inv_freq
    cache = torch.cat((freqs.cos(), freqs.sin()), dim=-1)
    q = torch.randn(TOKENS, HEADS * HEAD_SIZE)
    k = torch.randn(TOKENS, 8 * HEAD_SIZE)
    int8_weight = torch.randint(-128, 128, (HIDDEN, HIDDEN), dtype=torch.int8)
    scales = torch.rand(HIDDEN) * 0.01
    decode = torch.randn(8, HIDDEN)
    paged = _paged_inputs()
    scale = HEAD_SIZE**-0.5
    return [
        Case("rms_norm 64x4096", "kiln::rms_norm.out", (x, w, 1e-6), {}, composite=ref.rms_norm),
        Case(
            "fused_add_rms_norm 64x4096",
            "kiln::fused_add_rms_norm.out",
            (x, residual, w, 1e-6),
            {},
            (F32, F32),
            composite=ref.fused_add_rms_norm,
        ),
        Case(
            "silu_and_mul 64x2x11008",
            "kiln::silu_and_mul.out",
            (gate_up,),
            {},
            composite=ref.silu_and_mul,
        ),
        Case(
            "gelu_and_mul 64x2x11008",
            "kiln::gelu_and_mul.out",
            (gate_up, "none"),
            {},
            composite=ref.gelu_and_mul,
        ),
        Case(
            "rotary neox 64 tok 32+8 heads",
            "kiln::rotary_embedding.out",
            (positions, q, k, HEAD_SIZE, cache, True),
            {},
            (F32, F32),
            composite=_rotary,
        ),
        Case(
            "rotary gptj 64 tok 32+8 heads",
            "kiln::rotary_embedding.out",
            (positions, q, k, HEAD_SIZE, cache, False),
            {},
            (F32, F32),
            composite=_rotary,
        ),
        *_bf16_cases(x, residual, w, gate_up, positions, q, k, cache),
        Case(
            "paged_attention 8 seq ~750 tok",
            "kiln::paged_attention.out",
            (*paged, scale),
            {},
            composite=ref.paged_attention,
        ),
        Case(
            "paged_attention paged layout 8 seq ~750 tok",
            "kiln::paged_attention.paged_layout_out",
            (paged[0], *ref.paged_caches(paged[1], paged[2]), *paged[3:], scale),
            {},
            composite=ref.paged_attention,
        ),
        Case(
            "paged_attention v2 1 seq 8000 tok",
            "kiln::paged_attention.out",
            (*_long_context_inputs(), scale),
            {},
            composite=ref.paged_attention,
        ),
        Case(
            "int8 linear 8x4096x4096",
            "kiln::weight_int8_linear.out",
            (decode, int8_weight, scales, None),
            {},
            composite=_int8_linear,
        ),
        *_llama_sdpa_cases(),
    ]
