"""The Ascend kernels of kiln::reshape_and_cache (op_kv_cache, the flash layout) and
kiln::reshape_and_cache.paged_layout (op_paged_kv_cache, vLLM's paged layout) against the portable
kernel's semantics (token by token in order, so the last of tokens sharing a slot stays), on both
SoC profiles, with fallback disabled: every activation dtype (bfloat16 on both SoCs: the kernels
move bytes), rows with unaligned tails, rows longer than a UB tile, the issue's shape (32 kv heads
of 128, 16 tokens), padding slots, slots written twice, key and value rows past slot_mapping's
(batch padding) and key and value as row views of a qkv tensor; and of
kiln::advance_step_flashattn (op_advance_step) against vLLM's semantics in plain PyTorch
(llm_reference): padding sequences, several cores, several UB tiles per core."""

from __future__ import annotations

import llm_reference as ref
import pytest
import torch
from ascend_checks import SOCS, call_ascend, on_soc
from llm_checks import LLM_DTYPES, randn

import kiln

CACHE = "kiln::reshape_and_cache"
PAGED_CACHE = "kiln::reshape_and_cache.paged_layout"
ADVANCE = "kiln::advance_step_flashattn"

# (tokens, num_blocks, block_size, kv_heads, head_size): tails (3 and 40-element rows), several
# tiles per core, the shape, and rows longer than a UB tile (chunked).
SHAPES = [
    (5, 4, 4, 1, 3),
    (37, 10, 16, 2, 20),
    (600, 40, 16, 8, 128),
    (16, 64, 16, 32, 128),
    (6, 3, 4, 64, 256),
]


def written(cache: torch.Tensor, rows: torch.Tensor, slots: torch.Tensor) -> torch.Tensor:
    """`cache` with each token's row written to its slot in token order (padding skipped)."""
    result = cache.clone()
    flat = result.view(-1, rows[0].numel())
    for token, slot in enumerate(slots.tolist()):
        if slot >= 0:
            flat[slot] = rows[token].reshape(-1)
    return result


def slots_for(tokens: int, count: int, seed: int) -> torch.Tensor:
    """Distinct slots in random order, with padding (-1) and one slot written twice."""
    generator = torch.Generator().manual_seed(seed)
    slots = torch.randperm(count, generator=generator)[:tokens]
    if tokens > 2:
        slots[1] = -1
    if tokens > 4:
        slots[4] = slots[0]  # the later token's rows stay
    return slots


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_reshape_and_cache_writes_slots(
    soc: str, dtype: torch.dtype, shape: tuple[int, ...], index_dtype: torch.dtype
) -> None:
    tokens, blocks, block_size, heads, head_size = shape
    key_cache = randn(blocks, block_size, heads, head_size, dtype=dtype, seed=1)
    value_cache = randn(blocks, block_size, heads, head_size, dtype=dtype, seed=2)
    key = randn(tokens, heads, head_size, dtype=dtype, seed=3)
    value = randn(tokens, heads * head_size, dtype=dtype, seed=4)
    slots = slots_for(tokens, blocks * block_size, seed=tokens).to(index_dtype)
    expected_k, expected_v = written(key_cache, key, slots), written(value_cache, value, slots)
    with on_soc(soc):
        launches = call_ascend(CACHE, key, value, key_cache, value_cache, slots, out=None)
    assert [launch["kernel"] for launch in launches] == [
        "kiln_kv_cache_b32" if dtype == torch.float32 else "kiln_kv_cache_b16"
    ]
    assert torch.equal(key_cache, expected_k)
    assert torch.equal(value_cache, expected_v)


def paged_written(
    caches: tuple[torch.Tensor, torch.Tensor],
    key: torch.Tensor,
    value: torch.Tensor,
    slots: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The paged caches with the tokens written in order (llm_reference, vLLM's semantics)."""
    expected = (caches[0].clone(), caches[1].clone())
    ref.reshape_and_cache_paged(key, value, *expected, slots)
    return expected


# (tokens, num_blocks, block_size, kv_heads, head_size): vLLM's block sizes 8, 16 and 32, head
# sizes of one 16-byte key chunk (8 halves, 4 floats: rows of 16 bytes, under a DataCopy's 32),
# several units per core, and the shape.
PAGED_SHAPES = [
    (5, 4, 8, 1, 16),
    (37, 10, 16, 2, 80),
    (300, 40, 32, 4, 128),
    (16, 64, 16, 32, 128),
    (9, 4, 16, 3, 8),
]


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize("shape", PAGED_SHAPES)
def test_reshape_and_cache_paged_layout_writes_slots(
    soc: str, dtype: torch.dtype, shape: tuple[int, ...]
) -> None:
    tokens, blocks, block_size, heads, head_size = shape
    if head_size % ref.cache_x(dtype):
        pytest.skip("head_size is not whole 16-byte chunks of the dtype")
    x = ref.cache_x(dtype)
    caches = (
        randn(blocks, heads, head_size // x, block_size, x, dtype=dtype, seed=1),
        randn(blocks, heads, head_size, block_size, dtype=dtype, seed=2),
    )
    # Two rows of batch padding past slot_mapping's tokens, never read (NaN).
    key = randn(tokens + 2, heads, head_size, dtype=dtype, seed=3)
    value = randn(tokens + 2, heads * head_size, dtype=dtype, seed=4)
    key[tokens:], value[tokens:] = float("nan"), float("nan")
    slots = slots_for(tokens, blocks * block_size, seed=tokens)
    expected = paged_written(caches, key, value, slots)
    with on_soc(soc):
        launches = call_ascend(PAGED_CACHE, key, value, *caches, slots, out=None)
    width = 32 if dtype == torch.float32 else 16
    assert [launch["kernel"] for launch in launches] == [f"kiln_paged_kv_cache_b{width}"]
    for actual, wanted in zip(caches, expected, strict=True):
        assert torch.equal(actual, wanted)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("op", [CACHE, PAGED_CACHE])
@pytest.mark.parametrize("dtype", LLM_DTYPES)
def test_row_views_and_padded_batches_need_no_fallback(
    soc: str, op: str, dtype: torch.dtype
) -> None:
    # k, v = qkv.split(...) of a batch padded to 12 rows, 9 of them in slot_mapping: the kernels
    # read the views where they lie (no copy, no fallback to the portable kernel).
    heads, head_size, block_size, blocks = 2, 64, 16, 6
    qkv = randn(12, (4 + 2 * heads) * head_size, dtype=dtype, seed=5)
    _, key, value = qkv.split([4 * head_size, heads * head_size, heads * head_size], dim=-1)
    key = key.view(12, heads, head_size)
    slots = slots_for(9, blocks * block_size, seed=9)
    flash = (
        randn(blocks, block_size, heads, head_size, dtype=dtype, seed=6),
        randn(blocks, block_size, heads, head_size, dtype=dtype, seed=7),
    )
    if op == CACHE:
        caches = flash
        expected = (written(flash[0], key, slots), written(flash[1], value, slots))
    else:
        caches = ref.paged_caches(*flash)
        expected = paged_written(caches, key, value, slots)
    kiln.reset_fallback_stats()
    kiln.reset_strided_copies()
    with on_soc(soc):
        kiln.call_op(op, key, value, *caches, slots, backend="ascend")
    assert not [record for record in kiln.fallback_records() if record[0] == op]
    assert op not in kiln.strided_copies()
    for actual, wanted in zip(caches, expected, strict=True):
        assert torch.equal(actual, wanted)


def test_paged_layout_declines_tiles_a_data_copy_cannot_move() -> None:
    # Float heads of 4 (one 16-byte chunk) in blocks of 1 token: 16-byte tiles. The portable
    # kernel serves, counted as a fallback.
    caches = (randn(4, 1, 1, 1, 4), randn(4, 1, 4, 1))
    key = randn(3, 1, 4)
    slots = torch.tensor([2, 0, 3])
    expected = paged_written(caches, key, key, slots)
    with pytest.raises(kiln.KilnError, match="does not take caches whose .* tiles are not whole"):
        call_ascend(PAGED_CACHE, key, key, *caches, slots, out=None)
    kiln.reset_fallback_stats()
    kiln.call_op(PAGED_CACHE, key, key, *caches, slots, backend="ascend")
    assert any(record[0] == PAGED_CACHE for record in kiln.fallback_records())
    for actual, wanted in zip(caches, expected, strict=True):
        assert torch.equal(actual, wanted)


def test_only_padding_launches_nothing_and_writes_nothing() -> None:
    key_cache = randn(2, 4, 1, 8)
    before = key_cache.clone()
    key = randn(3, 1, 8)
    launches = call_ascend(CACHE, key, key, key_cache, key_cache, torch.full((3,), -1), out=None)
    assert torch.equal(key_cache, before)
    assert all(launch["kernel"] == "kiln_kv_cache_b32" for launch in launches)


def test_paged_layout_slot_past_the_caches_declines_and_writes_nothing() -> None:
    caches = ref.paged_caches(randn(2, 16, 2, 64), randn(2, 16, 2, 64, seed=1))
    before = [cache.clone() for cache in caches]
    key = randn(3, 2, 64)
    slots = torch.tensor([0, 32, 1])
    with pytest.raises(kiln.KilnError, match="refuses \\(slot_mapping\\[1\\] = 32 is past"):
        call_ascend(PAGED_CACHE, key, key, *caches, slots, out=None)
    with pytest.raises(kiln.KilnError, match="past the caches' 32 slots"):
        kiln.call_op(PAGED_CACHE, key, key, *caches, slots, backend="ascend")
    for cache, old in zip(caches, before, strict=True):
        assert torch.equal(cache, old)


def test_slot_past_the_caches_declines_and_portable_reports_it() -> None:
    key_cache, value_cache = randn(2, 16, 2, 64), randn(2, 16, 2, 64)
    before = key_cache.clone()
    key = randn(3, 2, 64)
    slots = torch.tensor([0, 32, 1])
    with pytest.raises(
        kiln.KilnError, match="refuses \\(slot_mapping\\[1\\] = .* is past the caches"
    ):
        call_ascend(CACHE, key, key, key_cache, value_cache, slots, out=None)
    with pytest.raises(kiln.KilnError, match="past the caches' 32 slots"):
        kiln.call_op(CACHE, key, key, key_cache, value_cache, slots, backend="ascend")
    assert torch.equal(key_cache, before)


def test_non_activation_cache_declines() -> None:
    cache = torch.zeros(2, 4, 1, 8, dtype=torch.float64)
    key = torch.ones(3, 1, 8, dtype=torch.float64)
    with pytest.raises(kiln.KilnError, match="refuses \\(key_cache has dtype Double"):
        call_ascend(CACHE, key, key, cache, cache, torch.tensor([0, 1, 2]), out=None)


def step_state(
    num_seqs: int, num_queries: int, block_size: int, max_blocks: int, seed: int
) -> list[torch.Tensor]:
    """advance_step's tensors in schema order; every advancing sequence has its next block."""
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(0, max_blocks * block_size, (num_seqs,), generator=g)
    return [
        torch.full((num_seqs,), 7, dtype=torch.int64),
        torch.randint(0, 32000, (num_queries, 1), generator=g),
        torch.full((num_seqs,), 9, dtype=torch.int64),
        lengths.to(torch.int32),
        torch.full((num_seqs,), 11, dtype=torch.int64),
        torch.randint(0, 5000, (num_seqs, max_blocks), generator=g, dtype=torch.int32),
    ]


# (num_seqs, num_queries, block_size, max_blocks): one block, padding, a tail of the 8-sequence
# blocks, many cores, and (on Ascend310P's 8 cores) several UB tiles per core.
STEPS = [
    (1, 1, 16, 1),
    (9, 6, 16, 4),
    (300, 256, 32, 8),
    (1037, 1000, 1, 64),
    (60_000, 59_999, 16, 2),
]


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("step", STEPS)
def test_advance_step_matches_reference(soc: str, step: tuple[int, int, int, int]) -> None:
    num_seqs, num_queries, block_size, max_blocks = step
    state = step_state(num_seqs, num_queries, block_size, max_blocks, seed=num_seqs)
    expected = [t.clone() for t in state]
    ref.advance_step_flashattn(num_seqs, num_queries, block_size, *expected)
    with on_soc(soc):
        launches = call_ascend(ADVANCE, num_seqs, num_queries, block_size, *state, out=None)
    assert [launch["kernel"] for launch in launches] == ["kiln_advance_step"]
    for actual, wanted in zip(state, expected, strict=True):
        assert torch.equal(actual, wanted)


def test_advance_step_without_a_block_declines_and_writes_nothing() -> None:
    state = step_state(4, 4, 16, 2, seed=1)
    state[3][2] = 32  # needs block 2 of 2
    before = [t.clone() for t in state]
    with pytest.raises(kiln.KilnError, match="does not take a next position without a block"):
        call_ascend(ADVANCE, 4, 4, 16, *state, out=None)
    with pytest.raises(kiln.KilnError, match="seq_lens\\[2\\] = 32"):
        kiln.call_op(ADVANCE, 4, 4, 16, *state, backend="ascend")
    for actual, wanted in zip(state, before, strict=True):
        assert torch.equal(actual, wanted)


def test_caches_without_slots_decline_a_slot() -> None:
    empty = torch.zeros(0, 16, 2, 8)
    key = randn(2, 2, 8)
    with pytest.raises(
        kiln.KilnError, match="refuses \\(slot_mapping\\[1\\] = .* is past the caches"
    ):
        call_ascend(CACHE, key, key, empty, empty, torch.tensor([-1, 0]), out=None)
