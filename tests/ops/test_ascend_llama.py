"""The Ascend kernels of ExecuTorch's LLM custom operators (namespace llama), emulated, on both SoC
profiles, with fallback disabled: custom_sdpa (op_llama_attention) against torch's
scaled_dot_product_attention in float64 on [B, H, S, D] (grouped-query heads repeated, fully
masked rows zeros), decode and prefill, causal, non-causal and masked, head sizes 64 and 128,
groups 1 to 64, contexts of several token chunks, several cores and query blocks, every dtype the
SoC computes; update_cache and update_cache_with_indices (op_kv_cache) for every element width,
rows with tails and rows longer than a UB tile; sdpa_with_kv_cache (both, on the caches in
device memory); the launch report of decode; and what the kernels decline."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from ascend_checks import SOCS, call_ascend, check_declines, float_dtypes, on_soc
from llm_checks import randn
from llm_reference import LlamaAttention as Attention
from llm_reference import llama_attention as sdpa_reference
from op_compare import assert_same, tolerances_for

import kiln

SDPA = "llama::custom_sdpa.out"
SDPA_WITH_CACHE = "llama::sdpa_with_kv_cache.out"
UPDATE = "llama::update_cache.out"
UPDATE_INDICES = "llama::update_cache_with_indices.out"

ATTENTION_KERNELS = {
    torch.float32: "kiln_llama_attention_float",
    torch.float16: "kiln_llama_attention_half",
    torch.bfloat16: "kiln_llama_attention_bf16",
}


# Decode (one query row; contexts over several 64-token chunks), prefill with a tail of query
# rows spread over several cores and query blocks, chunked prefill, non-causal and masked, groups
# 1, 2, 4 and 64 (the most the kernel takes: one query row's 64 heads fill a block).
CASES = {
    "decode": Attention(1, 1, 8, 2, 64, 40, 17),
    "decode_long_gqa4": Attention(2, 1, 32, 8, 128, 300, 299),
    "decode_noncausal": Attention(3, 1, 4, 4, 64, 70, 69, causal=False),
    "prefill_tail": Attention(2, 37, 4, 4, 64, 37, 0),
    "chunked_prefill_gqa2": Attention(1, 21, 8, 4, 128, 150, 129, scale=0.3),
    "prefill_noncausal_gqa4": Attention(1, 9, 16, 4, 64, 100, 91, causal=False),
    "masked": Attention(2, 9, 8, 2, 64, 75, 0, causal=False, masked=True, masked_row=True),
    "group64": Attention(1, 3, 64, 1, 128, 70, 67),
}


def check_sdpa(expected: torch.Tensor, *arguments: Any) -> None:
    """custom_sdpa ran on the Ascend kernel (one launch, also on Ascend310P with a mask holding
    -inf, which it takes) and matches `expected` within the Ascend tolerances."""
    out = torch.empty(0, dtype=expected.dtype)
    launches = call_ascend(SDPA, *arguments, out=out)
    assert [launch["kernel"] for launch in launches] == [ATTENTION_KERNELS[expected.dtype]]
    assert_same(out, expected, tolerances=tolerances_for("ascend"))


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_custom_sdpa(soc: str, case: Attention) -> None:
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            arguments = case.arguments(dtype)
            check_sdpa(sdpa_reference(*arguments), *arguments)


@pytest.mark.parametrize("mask_dtype", [torch.float16, torch.bfloat16])
def test_custom_sdpa_16_bit_mask(mask_dtype: torch.dtype) -> None:
    """The host widens a Half or BFloat16 mask to float, exactly."""
    query, key, value, start_pos, mask, *rest = CASES["masked"].arguments(torch.float16)
    assert mask is not None
    mask = mask.to(mask_dtype)
    expected = sdpa_reference(query, key, value, start_pos, mask.float(), *rest)
    check_sdpa(expected, query, key, value, start_pos, mask, *rest)


@pytest.mark.parametrize("soc", SOCS)
def test_decode_reads_every_row_once(soc: str) -> None:
    """Decode: each query row and each attended key and value row moves GM -> UB exactly once,
    and each result row UB -> GM once."""
    case = CASES["decode_long_gqa4"]
    arguments = case.arguments(torch.float16)
    with on_soc(soc):
        (launch,) = call_ascend(SDPA, *arguments, out=torch.empty(0).half())
    row_bytes = case.dim * 2
    attended_rows = case.batch * case.kv_heads * (case.start_pos + 1)
    query_bytes = arguments[0].nbytes
    assert launch["gm_to_ub_bytes"] == query_bytes + 2 * attended_rows * row_bytes
    assert launch["ub_to_gm_bytes"] == query_bytes


# ---- update_cache, update_cache_with_indices ----

WIDTH_KERNELS = {width: f"kiln_kv_cache_b{8 * width}" for width in (1, 2, 4, 8)}
# Every width the kernel moves: codes, 16-bit activations (bfloat16 on both SoCs: nothing is
# computed), float and 64-bit.
CACHE_DTYPES = [torch.int8, torch.float16, torch.bfloat16, torch.float32, torch.int64]

# (batch, new positions, cache positions, heads, dim, start_pos): rows of 15 elements (tails),
# decode, many rows over several cores and UB tiles, rows longer than a UB tile (chunked).
UPDATES = [
    (2, 4, 10, 3, 5, 6),
    (1, 1, 64, 8, 128, 63),
    (3, 100, 128, 8, 64, 20),
    (1, 2, 4, 64, 256, 1),
]


def cache_values(
    dtype: torch.dtype, shape: tuple[int, ...], seed: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """A cache [batch, positions, heads, dim] and a value [batch, new, heads, dim] of `dtype`."""
    batch, new, positions, heads, dim, _ = shape
    if dtype.is_floating_point:
        return (
            randn(batch, positions, heads, dim, dtype=dtype, seed=seed),
            randn(batch, new, heads, dim, dtype=dtype, seed=seed + 1),
        )
    generator = torch.Generator().manual_seed(seed)
    cache = torch.randint(-100, 100, (batch, positions, heads, dim), generator=generator)
    return cache.to(dtype), torch.randint(-100, 100, (batch, new, heads, dim)).to(dtype)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("dtype", CACHE_DTYPES)
@pytest.mark.parametrize("shape", UPDATES)
def test_update_cache(soc: str, dtype: torch.dtype, shape: tuple[int, ...]) -> None:
    cache, value = cache_values(dtype, shape, seed=shape[1])
    start_pos = shape[-1]
    expected = cache.clone()
    expected[:, start_pos : start_pos + value.shape[1]] = value
    out = torch.full((1,), 7).to(dtype)
    with on_soc(soc):
        launches = call_ascend(UPDATE, value, cache, start_pos, out=out)
    assert [launch["kernel"] for launch in launches] == [WIDTH_KERNELS[value.element_size()]]
    assert torch.equal(cache, expected)
    assert out.item() == 7  # the placeholder result is left as it is


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("dtype", [torch.int8, torch.bfloat16, torch.float32])
def test_update_cache_with_indices_keeps_the_last_write(soc: str, dtype: torch.dtype) -> None:
    shape = (3, 40, 64, 4, 24, 0)
    cache, value = cache_values(dtype, shape, seed=2)
    generator = torch.Generator().manual_seed(3)
    indices = torch.randint(0, 64, (3, 40), generator=generator)
    indices[1, 7] = indices[1, 30]  # written twice in one batch: the later row stays
    expected = cache.clone()
    for b in range(3):
        for t in range(40):
            expected[b, indices[b, t]] = value[b, t]
    with on_soc(soc):
        launches = call_ascend(UPDATE_INDICES, value, cache, 0, indices, out=torch.empty(1))
    assert [launch["kernel"] for launch in launches] == [WIDTH_KERNELS[value.element_size()]]
    assert torch.equal(cache, expected)


# ---- sdpa_with_kv_cache ----


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(
    "case",
    [Attention(2, 1, 8, 2, 64, 80, 70), Attention(1, 13, 16, 4, 128, 40, 20)],
    ids=["decode", "prefill"],
)
def test_sdpa_with_kv_cache(soc: str, case: Attention) -> None:
    """The caches written as the portable kernel writes them (exactly), then the attention over
    them: two launches, the caches staying in device memory between them."""
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            query, key_cache, value_cache, start_pos, _, *rest = case.arguments(dtype)
            shape = (case.batch, case.queries, case.kv_heads, case.dim)
            key, value = randn(*shape, dtype=dtype, seed=8), randn(*shape, dtype=dtype, seed=9)
            expected_caches = key_cache.clone(), value_cache.clone()
            for cache, new in zip(expected_caches, (key, value), strict=True):
                cache[:, start_pos : start_pos + case.queries] = new
            expected = sdpa_reference(query, *expected_caches, start_pos, None, *rest)
            out = torch.empty(0, dtype=dtype)
            arguments = (query, key, value, key_cache, value_cache, start_pos, case.queries)
            launches = call_ascend(SDPA_WITH_CACHE, *arguments, None, *rest, out=out)
            assert [launch["kernel"] for launch in launches] == [
                WIDTH_KERNELS[key.element_size()],
                ATTENTION_KERNELS[dtype],
            ]
            assert torch.equal(key_cache, expected_caches[0])
            assert torch.equal(value_cache, expected_caches[1])
            assert_same(out, expected, tolerances=tolerances_for("ascend"))


# ---- declines ----


def test_custom_sdpa_declines() -> None:
    query, key, value, *rest = Attention(1, 2, 4, 2, 8, 6, 0).arguments(torch.float16)
    out = torch.empty(0).half()
    check_declines(SDPA, query, key, value, *rest, out=out, reason="head_size 8")
    query, key, value, *rest = Attention(1, 1, 128, 1, 64, 4, 3).arguments(torch.float32)
    check_declines(
        SDPA, query, key, value, *rest, out=torch.empty(0), reason="more than 64 query heads"
    )
    query, key, value, start_pos, mask, *rest = CASES["masked"].arguments(torch.float32)
    mask[0, 3] = float("nan")
    check_declines(
        SDPA,
        query,
        key,
        value,
        start_pos,
        mask,
        *rest,
        out=torch.empty(0),
        reason="attn_mask holding NaN or \\+inf",
    )
    arguments = CASES["decode"].arguments(torch.bfloat16)
    with on_soc("Ascend310P"):
        check_declines(SDPA, *arguments, out=torch.empty(0).bfloat16(), reason="BFloat16")
        query, *rest = CASES["decode"].arguments(torch.float32)
        query[0, 0, 0, 0] = float("inf")
        check_declines(SDPA, query, *rest, out=torch.empty(0), reason="query holding inf")
    # Invalid input declines too, quoting the portable kernel, which reports it.
    query, key, value, start_pos, mask, _, causal, scale = CASES["decode"].arguments(torch.float32)
    invalid = (query, key, value, start_pos, mask, 0.1, causal, scale)
    with pytest.raises(kiln.KilnError, match="what the portable kernel refuses \\(drpout_p"):
        call_ascend(SDPA, *invalid, out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match="^llama::custom_sdpa.out: drpout_p is 0.1"):
        kiln.call_op(SDPA, *invalid, out=torch.empty(0), backend="ascend")


def test_refused_writes_decline_and_write_nothing() -> None:
    cache, value = cache_values(torch.float32, (2, 4, 10, 3, 8, 0), seed=1)
    before = cache.clone()
    with pytest.raises(kiln.KilnError, match="refuses \\(start_pos 7 with 4 new positions"):
        call_ascend(UPDATE, value, cache, 7, out=torch.empty(1))
    with pytest.raises(kiln.KilnError, match="refuses \\(indices\\[1\\]\\[2\\] is 10"):
        indices = torch.tensor([[0, 1, 2, 3], [4, 5, 10, 6]])
        call_ascend(UPDATE_INDICES, value, cache, 0, indices, out=torch.empty(1))
    query = randn(2, 4, 6, 8)
    with pytest.raises(kiln.KilnError, match="refuses \\(start_pos 7 with 4 new positions"):
        call_ascend(
            SDPA_WITH_CACHE, query, value, value, cache, cache.clone(), 7, 4, out=torch.empty(0)
        )
    assert torch.equal(cache, before)


def test_sdpa_with_kv_cache_declines_before_writing() -> None:
    """A head size the attention kernel does not take declines before the caches are written."""
    query = randn(1, 2, 4, 8, dtype=torch.float16)
    key = randn(1, 2, 2, 8, dtype=torch.float16, seed=1)
    key_cache = randn(1, 6, 2, 8, dtype=torch.float16, seed=2)
    before = key_cache.clone()
    out = torch.empty(0).half()
    arguments = (query, key, key, key_cache, key_cache.clone(), 0, 2)
    with pytest.raises(kiln.KilnError, match="does not take head_size 8"):
        call_ascend(SDPA_WITH_CACHE, *arguments, out=out)
    assert torch.equal(key_cache, before)
