"""ExecuTorch's LLM custom operators (namespace llama): custom_sdpa.out, sdpa_with_kv_cache.out,
update_cache.out and update_cache_with_indices.out, against ExecuTorch 1.5.1 itself (its
compiled kernels, which its AOT library registers with torch) and against the attention written
out in float64 PyTorch: decode and prefill, causal, non-causal and masked, grouped-query heads,
long contexts, every activation dtype, empty inputs, and bad input (refused, nothing written).

Where ExecuTorch is undefined Kiln differs on purpose (docs/custom_ops.md): a fully masked query
row gives zeros (as torch's scaled_dot_product_attention; ExecuTorch gives NaN), and a non-zero
dropout is refused (ExecuTorch ignores it)."""

from __future__ import annotations

import functools
from typing import Any

import pytest
import torch
from llm_checks import LLM_DTYPES, assert_near, randn
from llm_reference import LlamaAttention as Attention
from llm_reference import llama_attention as reference_attention
from op_compare import raises

SDPA = "llama::custom_sdpa.out"
SDPA_WITH_CACHE = "llama::sdpa_with_kv_cache.out"
UPDATE = "llama::update_cache.out"
UPDATE_INDICES = "llama::update_cache_with_indices.out"


@functools.cache
def executorch_ops() -> Any:
    """torch.ops.llama with ExecuTorch's own kernels behind it (its AOT library)."""
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401

    return torch.ops.llama


CASES = {
    "decode": Attention(heads=8, kv_heads=2, dim=64, positions=40, start_pos=17),
    "decode_last_position": Attention(heads=4, kv_heads=4, positions=24, start_pos=23),
    "decode_noncausal": Attention(positions=20, start_pos=9, causal=False),
    "prefill": Attention(batch=2, queries=7, heads=4, kv_heads=4, positions=16),
    "chunked_prefill": Attention(queries=5, heads=6, kv_heads=3, positions=20, start_pos=6),
    "prefill_noncausal": Attention(
        queries=3, heads=2, kv_heads=1, positions=9, start_pos=4, causal=False
    ),
    "masked": Attention(batch=2, queries=5, positions=12, start_pos=3, causal=False, masked=True),
    "long_context": Attention(heads=8, kv_heads=1, dim=128, positions=300, start_pos=210),
    # From 8 query rows the kernel computes in gemm blocks of 16 rows and 64 positions.
    "long_prefill": Attention(queries=40, heads=8, kv_heads=2, dim=64, positions=100),
    "long_chunked_prefill": Attention(
        batch=2, queries=24, heads=3, kv_heads=1, positions=130, start_pos=70
    ),
    "long_masked": Attention(queries=19, positions=150, start_pos=5, causal=False, masked=True),
    "long_noncausal": Attention(queries=8, positions=90, start_pos=60, causal=False),
    "odd_dim_scale": Attention(
        queries=3, heads=3, kv_heads=1, dim=20, positions=7, start_pos=2, scale=0.3
    ),
}


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_custom_sdpa_matches_reference(call_op: Any, case: Attention, dtype: torch.dtype) -> None:
    arguments = case.arguments(dtype)
    got = call_op(SDPA, *arguments, out=torch.empty(0, dtype=dtype))
    assert_near(got, reference_attention(*arguments), 2 if dtype != torch.float32 else 8)


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_custom_sdpa_matches_executorch(call_op: Any, case: Attention, dtype: torch.dtype) -> None:
    query, key, value, mask = case.tensors(dtype)
    if mask is not None:
        mask[:, 0] = 0.0  # ExecuTorch gives NaN for a fully masked row
    arguments = (query, key, value, case.start_pos, mask, 0.0, case.causal, case.scale)
    expected = executorch_ops().custom_sdpa.out(*arguments, out=torch.empty_like(query))
    got = call_op(SDPA, *arguments, out=torch.empty(0, dtype=dtype))
    # ExecuTorch rounds its blocked products differently: a few units of the dtype apart.
    assert_near(got, expected, 4 if dtype != torch.float32 else 8)


@pytest.mark.parametrize("queries", [3, 12])  # the per-row and the gemm path
def test_custom_sdpa_fully_masked_row_gives_zeros(call_op: Any, queries: int) -> None:
    query, key, value, _ = Attention(queries=queries, positions=70).tensors(torch.float32)
    mask = torch.zeros(queries, 70)
    mask[1] = float("-inf")
    mask[2, :65] = float("-inf")  # masked through the first chunk of positions
    got = call_op(SDPA, query, key, value, 0, mask, 0.0, False, None, out=torch.empty(0))
    assert torch.equal(got[:, 1], torch.zeros_like(got[:, 1]))
    assert_near(got, reference_attention(query, key, value, 0, mask, 0.0, False, None), 8)


def test_custom_sdpa_half_mask(call_op: Any) -> None:
    case = Attention(queries=4, positions=10, causal=False, masked=True)
    query, key, value, mask = case.tensors(torch.float16)
    assert mask is not None
    mask = mask.to(torch.float16)
    got = call_op(SDPA, query, key, value, 0, mask, 0.0, False, None, out=torch.empty(0).half())
    expected = reference_attention(query, key, value, 0, mask.float(), 0.0, False, None)
    assert_near(got, expected, 2)


@pytest.mark.parametrize("shape", [(1, 0, 4, 8), (0, 3, 4, 8)], ids=["no_queries", "no_batch"])
def test_custom_sdpa_empty(call_op: Any, shape: tuple[int, ...]) -> None:
    query = torch.randn(shape)
    key = torch.randn(shape[0], 6, 2, 8)
    got = call_op(SDPA, query, key, key, 2, None, 0.0, True, None, out=torch.empty(0))
    assert_near(got, reference_attention(query, key, key, 2, None, 0.0, True, None))


def test_custom_sdpa_bad_input(call_op: Any) -> None:
    query, key, value, _ = Attention(queries=2, positions=8).tensors(torch.float32)
    out = torch.empty(0)

    def refuses(text: str, *arguments: Any) -> None:
        with raises(call_op, text):
            call_op(SDPA, *arguments, out=out)

    refuses(
        "drpout_p is 0.1; inference attention takes no dropout",
        query,
        key,
        value,
        0,
        None,
        0.1,
        True,
        None,
    )
    mask = torch.zeros(2, 8)
    refuses("attn_mask and is_causal are both set", query, key, value, 0, mask, 0.0, True, None)
    refuses(
        r"attn_mask has shape \[2, 7\]: its size 1 must be key's sequence length \(8\)",
        query,
        key,
        value,
        0,
        mask[:, :7].contiguous(),
        0.0,
        False,
        None,
    )
    refuses("attn_mask has dtype Bool", query, key, value, 0, mask.bool(), 0.0, False, None)
    refuses(
        r"start_pos 7 with 2 queries reads past key's 8 positions; start_pos must be in "
        r"\[0, 6\]",
        query,
        key,
        value,
        7,
        None,
        0.0,
        True,
        None,
    )
    refuses("start_pos is -1", query, key, value, -1, None, 0.0, True, None)
    refuses(
        "query has 4 heads and key 3",
        query,
        torch.randn(1, 8, 3, 32),
        torch.randn(1, 8, 3, 32),
        0,
        None,
        0.0,
        True,
        None,
    )
    refuses(
        "key has dtype Half but query has Float", query, key.half(), value, 0, None, 0.0, True, None
    )
    refuses(
        "query has dtype Long", query.long(), key.long(), value.long(), 0, None, 0.0, True, None
    )
    refuses(
        r"query must have 4 dims, but has shape \[2, 4, 32\]",
        query[0],
        key,
        value,
        0,
        None,
        0.0,
        True,
        None,
    )
    refuses(
        r"value has shape \[1, 7, 2, 32\] but key has shape \[1, 8, 2, 32\]",
        query,
        key,
        value[:, :7].contiguous(),
        0,
        None,
        0.0,
        True,
        None,
    )
    refuses(
        r"key has shape \[1, 8, 2, 16\]: its size 3 must be query's head_dim \(32\)",
        query,
        key[..., :16].contiguous(),
        value[..., :16].contiguous(),
        0,
        None,
        0.0,
        True,
        None,
    )


# ---- update_cache ----

CACHE_DTYPES = [torch.float32, torch.bfloat16, torch.int8]


def cache_tensors(dtype: torch.dtype, positions: int = 10) -> tuple[torch.Tensor, torch.Tensor]:
    """A [2, positions, 3, 8] cache and a [2, 4, 3, 8] value of `dtype`."""
    if dtype == torch.int8:
        generator = torch.Generator().manual_seed(5)
        cache = torch.randint(-128, 128, (2, positions, 3, 8), generator=generator)
        return cache.to(dtype), torch.randint(-128, 128, (2, 4, 3, 8), generator=generator).to(
            dtype
        )
    return randn(2, positions, 3, 8, dtype=dtype, seed=5), randn(2, 4, 3, 8, dtype=dtype, seed=6)


@pytest.mark.parametrize("dtype", CACHE_DTYPES)
@pytest.mark.parametrize("start_pos", [0, 3, 6])
def test_update_cache_matches_executorch(call_op: Any, dtype: torch.dtype, start_pos: int) -> None:
    cache, value = cache_tensors(dtype)
    expected = cache.clone()
    executorch_ops().update_cache.out(value, expected, start_pos, out=torch.empty(1, dtype=dtype))
    out = torch.full((1,), 7).to(dtype)
    call_op(UPDATE, value, cache, start_pos, out=out)
    assert_near(cache, expected, 0)
    assert out.item() == 7  # the placeholder result is left as it is
    assert torch.equal(cache[:, start_pos : start_pos + 4], value)


@pytest.mark.parametrize("dtype", CACHE_DTYPES)
def test_update_cache_with_indices_matches_executorch(call_op: Any, dtype: torch.dtype) -> None:
    cache, value = cache_tensors(dtype)
    indices = torch.tensor([[9, 0, 4, 5], [1, 2, 8, 3]])
    expected = cache.clone()
    executorch_ops().update_cache_with_indices.out(
        value, expected, 0, indices, out=torch.empty(1, dtype=dtype)
    )
    call_op(UPDATE_INDICES, value, cache, 0, indices, out=torch.empty(1, dtype=dtype))
    assert_near(cache, expected, 0)


def test_update_cache_with_repeated_indices_keeps_the_last(call_op: Any) -> None:
    cache, value = cache_tensors(torch.float32)
    indices = torch.tensor([[2, 2, 2, 7], [0, 1, 0, 1]])
    call_op(UPDATE_INDICES, value, cache, 0, indices, out=torch.empty(1))
    assert torch.equal(cache[0, 2], value[0, 2]) and torch.equal(cache[1, 0], value[1, 2])
    assert torch.equal(cache[1, 1], value[1, 3])


def test_update_cache_empty_value(call_op: Any) -> None:
    cache, value = cache_tensors(torch.float32)
    before = cache.clone()
    call_op(UPDATE, value[:, :0], cache, 10, out=torch.empty(1))
    assert torch.equal(cache, before)


def test_update_cache_bad_input(call_op: Any) -> None:
    cache, value = cache_tensors(torch.float32)
    before = cache.clone()
    out = torch.empty(1)
    with raises(
        call_op,
        r"start_pos 7 with 4 new positions does not fit cache's 10 positions; "
        r"start_pos must be in \[0, 6\]",
    ):
        call_op(UPDATE, value, cache, 7, out=out)
    with raises(call_op, "start_pos -1 with 4 new positions"):
        call_op(UPDATE, value, cache, -1, out=out)
    with raises(call_op, "value has dtype Half but cache has Float"):
        call_op(UPDATE, value.half(), cache, 0, out=out)
    with raises(call_op, r"value has shape \[2, 4, 2, 8\] but cache has shape \[2, 10, 3, 8\]"):
        call_op(UPDATE, value[:, :, :2].contiguous(), cache, 0, out=out)
    with raises(call_op, r"indices\[1\]\[2\] is 10, outside cache's 10 positions"):
        call_op(
            UPDATE_INDICES, value, cache, 0, torch.tensor([[0, 1, 2, 3], [4, 5, 10, 6]]), out=out
        )
    with raises(call_op, "indices has dtype Int; pass a Long tensor"):
        call_op(UPDATE_INDICES, value, cache, 0, torch.zeros(2, 4, dtype=torch.int), out=out)
    with raises(call_op, r"indices has shape \[2, 3\]: its size 1 must be value's sequence"):
        call_op(UPDATE_INDICES, value, cache, 0, torch.zeros(2, 3, dtype=torch.long), out=out)
    assert torch.equal(cache, before)


# ---- sdpa_with_kv_cache ----


def cached_step(
    dtype: torch.dtype, queries: int, start_pos: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """query [1, queries, 4, 16] and this step's key and value [1, queries, 2, 16] with caches
    [1, 24, 2, 16] holding earlier positions."""
    return (
        randn(1, queries, 4, 16, dtype=dtype, seed=10),
        randn(1, queries, 2, 16, dtype=dtype, seed=11),
        randn(1, queries, 2, 16, dtype=dtype, seed=12),
        randn(1, 24, 2, 16, dtype=dtype, seed=13),
        randn(1, 24, 2, 16, dtype=dtype, seed=14),
    )


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize(("queries", "start_pos"), [(1, 0), (1, 13), (6, 0), (4, 20)])
def test_sdpa_with_kv_cache_matches_executorch(
    call_op: Any, dtype: torch.dtype, queries: int, start_pos: int
) -> None:
    query, key, value, key_cache, value_cache = cached_step(dtype, queries, start_pos)
    expected_caches = key_cache.clone(), value_cache.clone()
    expected = executorch_ops().sdpa_with_kv_cache.out(
        query,
        key,
        value,
        *expected_caches,
        start_pos,
        queries,
        None,
        0.0,
        True,
        None,
        out=torch.empty_like(query),
    )
    got = call_op(
        SDPA_WITH_CACHE,
        query,
        key,
        value,
        key_cache,
        value_cache,
        start_pos,
        queries,
        None,
        0.0,
        True,
        None,
        out=torch.empty(0, dtype=dtype),
    )
    assert_near(key_cache, expected_caches[0], 0)
    assert_near(value_cache, expected_caches[1], 0)
    assert_near(got, expected, 4 if dtype != torch.float32 else 8)
    reference = reference_attention(query, key_cache, value_cache, start_pos, None, 0.0, True, None)
    assert_near(got, reference, 2 if dtype != torch.float32 else 8)


def test_sdpa_with_kv_cache_bad_input_writes_nothing(call_op: Any) -> None:
    query, key, value, key_cache, value_cache = cached_step(torch.float32, 4, 0)
    before = key_cache.clone(), value_cache.clone()
    out = torch.empty(0)

    def refuses(text: str, *arguments: Any) -> None:
        with raises(call_op, text):
            call_op(SDPA_WITH_CACHE, *arguments, out=out)

    caches = (key_cache, value_cache)
    refuses(
        r"start_pos 21 with 4 new positions does not fit key_cache's 24 positions",
        query,
        key,
        value,
        *caches,
        21,
        4,
        None,
        0.0,
        True,
        None,
    )
    refuses(
        r"query has shape \[1, 4, 4, 16\]: its size 1 must be seq_len \(3\)",
        query,
        key,
        value,
        *caches,
        0,
        3,
        None,
        0.0,
        True,
        None,
    )
    refuses("drpout_p is 0.5", query, key, value, *caches, 0, 4, None, 0.5, True, None)
    refuses(
        r"value_cache has shape \[1, 23, 2, 16\] but key_cache has shape \[1, 24, 2, 16\]",
        query,
        key,
        value,
        key_cache,
        value_cache[:, :23].contiguous(),
        0,
        4,
        None,
        0.0,
        True,
        None,
    )
    refuses(
        "key has dtype Half but key_cache has Float",
        query,
        key.half(),
        value.half(),
        *caches,
        0,
        4,
        None,
        0.0,
        True,
        None,
    )
    assert torch.equal(key_cache, before[0]) and torch.equal(value_cache, before[1])
