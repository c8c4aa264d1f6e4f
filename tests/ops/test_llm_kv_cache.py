"""The paged KV cache operators against vLLM's semantics written in plain PyTorch
(llm_reference): kiln::reshape_and_cache and .paged_layout (writes by slot into the flash layout
and into vLLM's 5-dim paged layout, x per dtype; skips padding slots and key/value rows past
slot_mapping's; key and value as row views of a qkv tensor), kiln::paged_attention.out (decode
over block tables, ragged context lengths, grouped-query heads, alibi; v2 and the paged layout
in test_llm_paged_attention.py) and kiln::advance_step_flashattn (in-place step advance), with
bad input: slots, block table entries and context lengths out of range, mismatched shapes,
layouts and dtypes."""

from __future__ import annotations

from typing import Any

import llm_reference as ref
import pytest
import torch
from ascend_checks import SOCS, check_ascend, check_declines, float_dtypes, on_soc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llm_checks import LLM_DTYPES, assert_near, caches, paged_inputs, randn
from op_compare import raises

import kiln

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CACHE = "kiln::reshape_and_cache"
PAGED_CACHE = "kiln::reshape_and_cache.paged_layout"
ATTENTION = "kiln::paged_attention.out"
ADVANCE = "kiln::advance_step_flashattn"


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize(("block_size", "head_size"), [(16, 64), (32, 80), (16, 128)])
def test_reshape_and_cache_writes_slots(
    call_op: Any, dtype: torch.dtype, block_size: int, head_size: int
) -> None:
    key_cache, value_cache = caches(5, block_size, 2, head_size, dtype)
    slots = torch.tensor([3, -1, 5 * block_size - 1, block_size, 17, -1])
    key = randn(6, 2, head_size, dtype=dtype, seed=2)
    value = randn(6, 2 * head_size, dtype=dtype, seed=3)  # flat heads are accepted too
    expected_k, expected_v = key_cache.clone(), value_cache.clone()
    ref.reshape_and_cache(key, value, expected_k, expected_v, slots)
    call_op(CACHE, key, value, key_cache, value_cache, slots)
    assert_near(key_cache, expected_k, 0)
    assert_near(value_cache, expected_v, 0)


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize(("block_size", "head_size"), [(8, 64), (16, 80), (32, 128), (16, 8)])
def test_reshape_and_cache_paged_layout_writes_slots(
    call_op: Any, dtype: torch.dtype, block_size: int, head_size: int
) -> None:
    # vLLM's layout: key_cache [blocks, heads, head_size / x, block_size, x] with x = 16 bytes
    # of the dtype (4 for float32, 8 for 16-bit), value_cache [blocks, heads, head_size,
    # block_size]; padding slots skipped, and the last two key/value rows are batch padding.
    x = ref.cache_x(dtype)
    key_cache = randn(5, 2, head_size // x, block_size, x, dtype=dtype, seed=0)
    value_cache = randn(5, 2, head_size, block_size, dtype=dtype, seed=1)
    slots = torch.tensor([3, -1, 5 * block_size - 1, block_size, 17, -1])
    key = randn(8, 2, head_size, dtype=dtype, seed=2)
    value = randn(8, 2 * head_size, dtype=dtype, seed=3)
    expected_k, expected_v = key_cache.clone(), value_cache.clone()
    ref.reshape_and_cache_paged(key, value, expected_k, expected_v, slots)
    call_op(PAGED_CACHE, key, value, key_cache, value_cache, slots)
    assert_near(key_cache, expected_k, 0)
    assert_near(value_cache, expected_v, 0)


@pytest.mark.parametrize("op", [CACHE, PAGED_CACHE])
@pytest.mark.parametrize("dtype", LLM_DTYPES)
def test_reshape_and_cache_takes_row_views_and_padded_batches(
    call_op: Any, op: str, dtype: torch.dtype
) -> None:
    # A serving engine's k, v = qkv.split(...) of a CUDA-graph batch padded to 7 tokens, of which
    # slot_mapping names 5: the views' rows are qkv's, 5 * 64 elements apart, and rows 5 and 6
    # are never read (they hold NaN here).
    heads, head_size, block_size = 2, 32, 16
    qkv = randn(7, (1 + 2 * heads) * head_size, dtype=dtype, seed=4)
    qkv[5:] = float("nan")
    _, key, value = qkv.split([head_size, heads * head_size, heads * head_size], dim=-1)
    key = key.view(7, heads, head_size)  # [7, 2, 32] with rows qkv.stride(0) apart
    slots = torch.tensor([40, 2, -1, 63, 17], dtype=torch.int32)
    flash = tuple(randn(4, block_size, heads, head_size, dtype=dtype, seed=5 + i) for i in (0, 1))
    if op == CACHE:
        caches = tuple(c.clone() for c in flash)
        expected = tuple(c.clone() for c in flash)
        ref.reshape_and_cache(key.contiguous(), value.contiguous(), *expected, slots)
    else:
        caches = ref.paged_caches(*flash)
        expected = tuple(c.clone() for c in caches)
        ref.reshape_and_cache_paged(key.contiguous(), value.contiguous(), *expected, slots)
    before = qkv.clone()
    call_op(op, key, value, *caches, slots)
    for actual, wanted in zip(caches, expected, strict=True):
        assert not actual.isnan().any()
        assert_near(actual, wanted, 0)
    assert torch.equal(qkv[:5], before[:5])


def test_reshape_and_cache_bad_input(call_op: Any) -> None:
    key_cache, value_cache = caches(2, 16, 2, 64, torch.float32)
    before = key_cache.clone()
    key = torch.randn(3, 2, 64)
    with raises(call_op, "past the caches' 32 slots"):
        call_op(CACHE, key, key, key_cache, value_cache, torch.tensor([0, 32, 1]))
    assert torch.equal(key_cache, before)  # nothing written before the check
    with raises(call_op, "key has shape"):
        call_op(CACHE, torch.randn(3, 2, 32), key, key_cache, value_cache, torch.tensor([0, 1, 2]))
    # Fewer rows than slot_mapping's tokens (more are padding, and fine).
    with raises(call_op, "key has shape \\[3, 2, 64\\].*num_tokens >= 4"):
        call_op(CACHE, key, key, key_cache, value_cache, torch.tensor([0, 1, 2, 3]))
    with raises(call_op, "key has dtype"):
        call_op(CACHE, key.half(), key, key_cache, value_cache, torch.tensor([0, 1, 2]))
    with raises(call_op, "value_cache has shape"):
        call_op(CACHE, key, key, key_cache, value_cache[:1], torch.tensor([0, 1, 2]))
    with raises(call_op, "slot_mapping has dtype"):
        call_op(CACHE, key, key, key_cache, value_cache, torch.tensor([0.0, 1.0, 2.0]))
    # A view whose rows are not dense is copied by the bindings, never refused; a transposed one
    # reaches the kernel as a copy too.
    call_op(
        CACHE,
        key.transpose(1, 2).contiguous().transpose(1, 2),
        key,
        key_cache,
        value_cache,
        torch.tensor([0, 1, 2]),
    )


def test_reshape_and_cache_layout_mismatch(call_op: Any) -> None:
    key = torch.randn(3, 2, 64)
    slots = torch.tensor([0, 1, 2])
    flash = caches(2, 16, 2, 64, torch.float32)
    paged = ref.paged_caches(*flash)
    with raises(
        call_op, "5 dims are vLLM's paged layout; call kiln::reshape_and_cache.paged_layout"
    ):
        call_op(CACHE, key, key, *paged, slots)
    with raises(call_op, "4 dims are the flash layout; call kiln::reshape_and_cache,"):
        call_op(PAGED_CACHE, key, key, *flash, slots)
    # x is 16 bytes of the dtype: 4 float32 elements, not 8.
    wrong_x = paged[0].reshape(2, 2, 8, 16, 8)
    with raises(call_op, "its last dim x must hold 16 bytes, 4 elements"):
        call_op(PAGED_CACHE, key, key, wrong_x, paged[1], slots)
    with raises(call_op, "value_cache has shape \\[2, 2, 16, 64\\]"):
        call_op(PAGED_CACHE, key, key, paged[0], paged[1].transpose(2, 3).contiguous(), slots)
    with raises(call_op, "past the caches' 32 slots"):
        call_op(PAGED_CACHE, key, key, *paged, torch.tensor([0, 32, 1]))


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize(
    ("block_size", "heads", "kv_heads", "head_size"),
    [(16, 4, 4, 64), (32, 8, 2, 80), (16, 32, 8, 128), (16, 6, 1, 128)],
)
def test_paged_attention_matches_reference(
    call_op: Any, dtype: torch.dtype, block_size: int, heads: int, kv_heads: int, head_size: int
) -> None:
    lengths = [1, 37, 0, 100, block_size, 2 * block_size + 1]
    inputs = paged_inputs(lengths, block_size, heads, kv_heads, head_size, dtype, seed=5)
    scale = head_size**-0.5
    out = call_op(ATTENTION, *inputs, scale, out=torch.empty(0, dtype=dtype))
    assert_near(out, ref.paged_attention(*inputs, scale), 4)


@SETTINGS
@given(
    lengths=st.lists(st.integers(0, 70), min_size=1, max_size=4),
    block_size=st.sampled_from([1, 4, 16, 32]),
    group=st.sampled_from([1, 2, 4]),
    head_size=st.sampled_from([8, 64, 80]),
    alibi=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_paged_attention_hypothesis(
    call_op: Any,
    lengths: list[int],
    block_size: int,
    group: int,
    head_size: int,
    alibi: bool,
    seed: int,
) -> None:
    inputs = paged_inputs(lengths, block_size, 2 * group, 2, head_size, torch.float32, seed)
    slopes = torch.rand(2 * group) if alibi else None
    out = call_op(ATTENTION, *inputs, 0.3, slopes, out=torch.empty(0))
    assert_near(out, ref.paged_attention(*inputs, 0.3, slopes), 4)


def test_paged_attention_bad_input(call_op: Any) -> None:
    query, key_cache, value_cache, tables, lens = paged_inputs(
        [5, 20], 16, 4, 2, 64, torch.float32, 0
    )

    def attend(*args: Any) -> Any:
        return call_op(ATTENTION, *args, 0.1, out=torch.empty(0))

    with raises(call_op, "context_lens\\[1\\] = 33 is outside"):
        attend(query, key_cache, value_cache, tables, torch.tensor([5, 33], dtype=torch.int32))
    bad = tables.clone()
    bad[1, 1] = key_cache.shape[0]
    with raises(call_op, "block_tables\\[1\\]\\[1\\]"):
        attend(query, key_cache, value_cache, bad, lens)
    bad[1, 1] = -1
    with raises(call_op, "block_tables\\[1\\]\\[1\\]"):
        attend(query, key_cache, value_cache, bad, lens)
    with raises(call_op, "query has head_size 32"):
        attend(query[..., :32].contiguous(), key_cache, value_cache, tables, lens)
    with raises(call_op, "not a multiple of the caches' 2 kv heads"):
        attend(query[:, :3].contiguous(), key_cache, value_cache, tables, lens)
    with raises(call_op, "key_cache has dtype"):
        attend(query, key_cache.half(), value_cache, tables, lens)
    with raises(call_op, "context_lens has shape"):
        attend(query, key_cache, value_cache, tables, lens[:1])
    with raises(call_op, "block_tables has dtype"):
        attend(query, key_cache, value_cache, tables.float(), lens)
    empty = key_cache[:, :0].contiguous()
    with raises(call_op, "block_size \\(dim 1\\) must be positive"):
        attend(query, empty, empty, tables, torch.zeros(2, dtype=torch.int32))


# The Ascend kernel itself (emulated), fallback disabled, on both SoC profiles: ragged contexts
# over several token chunks, grouped-query heads, head sizes 64/80/128, alibi, and the issue's
# shape (32 query heads of 128 over 8 kv heads).
ASCEND_CASES = [(16, 4, 4, 64), (32, 8, 2, 80), (16, 32, 8, 128), (16, 6, 1, 128)]


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(("block_size", "heads", "kv_heads", "head_size"), ASCEND_CASES)
def test_paged_attention_ascend(
    soc: str, block_size: int, heads: int, kv_heads: int, head_size: int
) -> None:
    lengths = [1, 37, 0, 200, block_size, 2 * block_size + 1]
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            inputs = paged_inputs(lengths, block_size, heads, kv_heads, head_size, dtype, seed=7)
            scale = head_size**-0.5
            slopes = torch.rand(heads) if heads == 6 else None
            expected = ref.paged_attention(*inputs, scale, slopes)
            out = torch.empty(0, dtype=dtype)
            # The softmax weights are formed in float, in another order than the reference's.
            check_ascend(ATTENTION, expected, *inputs, scale, slopes, out=out, atol=0.0)
        # Long block tables and context lengths reach the kernel as int32.
        query, key_cache, value_cache, tables, lens = inputs
        long_inputs = (query, key_cache, value_cache, tables.long(), lens.long())
        check_ascend(ATTENTION, expected, *long_inputs, scale, slopes, out=out, atol=0.0)


def test_paged_attention_ascend_declines() -> None:
    query, key_cache, value_cache, tables, lens = paged_inputs(
        [5, 20], 16, 4, 2, 8, torch.float16, 0
    )
    out = torch.empty(0, dtype=torch.float16)
    check_declines(
        ATTENTION, query, key_cache, value_cache, tables, lens, 0.1, out=out, reason="head_size 8"
    )
    query, key_cache, value_cache, tables, lens = paged_inputs(
        [5, 20], 16, 4, 2, 64, torch.float32, 0
    )
    # Out-of-range input declines too: the portable kernel reports it.
    bad = torch.tensor([5, 33], dtype=torch.int32)
    with pytest.raises(
        kiln.KilnError, match="does not take what the portable kernel refuses \\(context_lens"
    ):
        kiln.call_op(
            ATTENTION,
            query,
            key_cache,
            value_cache,
            tables,
            bad,
            0.1,
            out=torch.empty(0),
            backend="ascend",
            allow_fallback=False,
        )


def step_state(
    seq_lens: list[int], num_seqs: int, block_size: int, max_blocks: int
) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(len(seq_lens))
    return {
        "input_tokens": torch.full((num_seqs,), 7, dtype=torch.int64),
        "sampled_token_ids": torch.randint(0, 1000, (len(seq_lens), 1), generator=generator),
        "input_positions": torch.full((num_seqs,), 9, dtype=torch.int64),
        "seq_lens": torch.tensor(seq_lens + [3] * (num_seqs - len(seq_lens)), dtype=torch.int32),
        "slot_mapping": torch.full((num_seqs,), 11, dtype=torch.int64),
        "block_tables": torch.randint(
            0, 50, (num_seqs, max_blocks), dtype=torch.int32, generator=generator
        ),
    }


def advance(
    call_op: Any, num_seqs: int, num_queries: int, block_size: int, state: dict[str, torch.Tensor]
) -> None:
    call_op(
        ADVANCE,
        num_seqs,
        num_queries,
        block_size,
        state["input_tokens"],
        state["sampled_token_ids"],
        state["input_positions"],
        state["seq_lens"],
        state["slot_mapping"],
        state["block_tables"],
    )


@pytest.mark.parametrize("block_size", [16, 32])
@pytest.mark.parametrize("padding", [0, 3])
def test_advance_step_matches_reference(call_op: Any, block_size: int, padding: int) -> None:
    seq_lens = [1, 15, 16, 31, 63, 0]
    state = step_state(seq_lens, len(seq_lens) + padding, block_size, 64 // block_size)
    expected = {name: t.clone() for name, t in state.items()}
    ref.advance_step_flashattn(
        len(seq_lens) + padding, len(seq_lens), block_size, *expected.values()
    )
    advance(call_op, len(seq_lens) + padding, len(seq_lens), block_size, state)
    for name in ("input_tokens", "input_positions", "seq_lens", "slot_mapping"):
        torch.testing.assert_close(state[name], expected[name], rtol=0, atol=0)


def test_advance_step_bad_input(call_op: Any) -> None:
    state = step_state([3, 32], 2, 16, 2)
    before = {name: t.clone() for name, t in state.items()}
    with raises(call_op, "seq_lens\\[1\\] = 32: the next position needs block 2"):
        advance(call_op, 2, 2, 16, state)
    for name, tensor in state.items():
        assert torch.equal(tensor, before[name]), f"{name} was written before the check"
    # A negative length is named as such, not as a block past the table.
    state = step_state([3, 4], 2, 16, 2)
    state["seq_lens"][0] = -1
    with raises(call_op, "seq_lens\\[0\\] = -1 is negative; pass each sequence's length"):
        advance(call_op, 2, 2, 16, state)
    state = step_state([3, 4], 2, 16, 2)
    state["block_tables"][1, 0] = -2
    with raises(call_op, "block_tables\\[1\\]\\[0\\] = -2"):
        advance(call_op, 2, 2, 16, state)
    state = step_state([3, 4], 2, 16, 2)
    with raises(call_op, "num_queries 3 must be"):
        advance(call_op, 2, 3, 16, state)
    with raises(call_op, "seq_lens has dtype"):
        advance(call_op, 2, 2, 16, {**state, "seq_lens": state["seq_lens"].long()})
    with raises(call_op, "input_tokens has shape"):
        advance(call_op, 2, 2, 16, {**state, "input_tokens": torch.zeros(3, dtype=torch.int64)})
    with raises(call_op, "sampled_token_ids has dtype"):
        advance(call_op, 2, 1, 16, state)
    with raises(call_op, "block_size must be positive"):
        advance(call_op, 2, 2, 0, state)


@pytest.mark.parametrize("dtype", LLM_DTYPES)
def test_decode_steps_compose(call_op: Any, dtype: torch.dtype) -> None:
    # The three ops agree on the cache layout: prefill the cache through reshape_and_cache, then
    # per decode step advance_step_flashattn picks each new token's slot, reshape_and_cache
    # stores its key and value there and paged_attention attends over everything so far, which
    # must equal attention over the unpaged history.
    seqs, heads, kv_heads, head_size, block_size = 3, 4, 2, 64, 16
    prompt = [5, 16, 30]
    blocks = 12
    key_cache, value_cache = caches(blocks, block_size, kv_heads, head_size, dtype, seed=9)
    block_tables = torch.randperm(blocks).reshape(seqs, 4).to(torch.int32)
    history_k = [
        randn(n, kv_heads, head_size, dtype=dtype, seed=20 + s) for s, n in enumerate(prompt)
    ]
    history_v = [
        randn(n, kv_heads, head_size, dtype=dtype, seed=30 + s) for s, n in enumerate(prompt)
    ]
    for s, n in enumerate(prompt):
        positions = torch.arange(n)
        slots = (
            block_tables[s].long()[positions // block_size] * block_size + positions % block_size
        )
        call_op(CACHE, history_k[s], history_v[s], key_cache, value_cache, slots)
    state = step_state(prompt, seqs, block_size, 4)
    state["block_tables"] = block_tables
    for step in range(3):
        advance(call_op, seqs, seqs, block_size, state)
        new_k = randn(seqs, kv_heads, head_size, dtype=dtype, seed=40 + step)
        new_v = randn(seqs, kv_heads, head_size, dtype=dtype, seed=50 + step)
        call_op(CACHE, new_k, new_v, key_cache, value_cache, state["slot_mapping"])
        query = randn(seqs, heads, head_size, dtype=dtype, seed=60 + step)
        out = call_op(
            ATTENTION,
            query,
            key_cache,
            value_cache,
            block_tables,
            state["seq_lens"],
            0.125,
            out=torch.empty(0, dtype=dtype),
        )
        for s in range(seqs):
            history_k[s] = torch.cat((history_k[s], new_k[s : s + 1]))
            history_v[s] = torch.cat((history_v[s], new_v[s : s + 1]))
            keys = history_k[s].float().repeat_interleave(heads // kv_heads, dim=1)
            values = history_v[s].float().repeat_interleave(heads // kv_heads, dim=1)
            logits = 0.125 * torch.einsum("hd,lhd->hl", query[s].float(), keys)
            expected = torch.einsum("hl,lhd->hd", logits.softmax(-1), values).to(dtype)
            assert_near(out[s], expected, 4)
    assert state["seq_lens"].tolist() == [n + 3 for n in prompt]
