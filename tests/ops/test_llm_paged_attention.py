"""kiln::paged_attention.out (flash caches) and kiln::paged_attention.paged_layout_out (vLLM's
paged layout, key_cache [num_blocks, num_kv_heads, head_size / x, block_size, x]) against vLLM's
semantics in plain PyTorch (llm_reference): long contexts through v2's partitions of 512 tokens
(513, 1500, 4000 tokens, block sizes 8/16/32, grouped-query heads, alibi), the same bits on one
thread and on two, query and out as row views, and bad input (the wrong layout for an overload,
mismatched shapes, out rows that overlap). The Ascend kernels themselves:
test_ascend_paged_attention.py."""

from __future__ import annotations

from typing import Any

import llm_reference as ref
import pytest
import torch
from llm_checks import LLM_DTYPES, assert_near, paged_inputs, randn
from op_compare import raises

import kiln

FLASH = "kiln::paged_attention.out"
PAGED = "kiln::paged_attention.paged_layout_out"
OPS = [FLASH, PAGED]


def attend(
    call_op: Any, op: str, inputs: tuple[torch.Tensor, ...], scale: float, *rest: Any
) -> Any:
    return call_op(op, *inputs, scale, *rest, out=torch.empty(0, dtype=inputs[0].dtype))


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize(
    ("block_size", "heads", "kv_heads", "head_size"),
    [(8, 4, 4, 64), (16, 8, 2, 80), (32, 32, 8, 128), (16, 6, 1, 128)],
)
def test_paged_layout_matches_reference(
    call_op: Any, dtype: torch.dtype, block_size: int, heads: int, kv_heads: int, head_size: int
) -> None:
    lengths = [1, 37, 0, 100, block_size, 2 * block_size + 1]
    inputs = paged_inputs(lengths, block_size, heads, kv_heads, head_size, dtype, 5, paged=True)
    slopes = torch.rand(heads) if heads == 6 else None
    out = attend(call_op, PAGED, inputs, head_size**-0.5, slopes)
    assert_near(out, ref.paged_attention(*inputs, head_size**-0.5, slopes), 4)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize("block_size", [8, 16, 32])
def test_v2_partitions_long_contexts(
    call_op: Any, op: str, dtype: torch.dtype, block_size: int
) -> None:
    # Contexts of one token past a partition, of three partitions and of eight, beside short
    # ones, with 8 query heads over 2 kv heads; the reference combines the partitions as vLLM's
    # v2 does, in float64.
    lengths = [513, 7, 4000, 1500, 512]
    inputs = paged_inputs(lengths, block_size, 8, 2, 64, dtype, block_size, paged=op == PAGED)
    out = attend(call_op, op, inputs, 0.125)
    assert_near(out, ref.paged_attention(*inputs, 0.125, compute=torch.float64), 4)


@pytest.mark.parametrize("op", OPS)
def test_v2_partitions_with_alibi(call_op: Any, op: str) -> None:
    # Alibi's bias counts back from the sequence's last token in every partition.
    lengths = [1100, 600]
    inputs = paged_inputs(lengths, 16, 4, 4, 64, torch.float32, 3, paged=op == PAGED)
    slopes = torch.rand(4) * 0.01
    out = attend(call_op, op, inputs, 0.125, slopes)
    assert_near(out, ref.paged_attention(*inputs, 0.125, slopes, compute=torch.float64), 4)


def test_partitioned_reference_is_the_softmax() -> None:
    # v2's combination of partitions is the softmax over the whole context (in float64 up to
    # rounding): the reference's partitions are vLLM's, not a different attention.
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 1300, generator=generator, dtype=torch.float64) * 4
    values = torch.randn(1300, 3, 16, generator=generator, dtype=torch.float64)
    plain = torch.einsum("hl,lhd->hd", logits.softmax(-1), values)
    torch.testing.assert_close(ref._partitioned_softmax(logits, values), plain)


@pytest.mark.parametrize("op", OPS)
def test_one_long_sequence_same_bits_on_any_thread_count(op: str) -> None:
    # The (sequence, head block, partition) items of a single 4000-token sequence spread over
    # the threads; partitions are fixed at 512 tokens, so the result is the same bits.
    inputs = paged_inputs([4000], 16, 8, 2, 128, torch.float16, 11, paged=op == PAGED)
    previous = kiln.get_num_threads()
    try:
        kiln.set_num_threads(1)
        one = kiln.call_op(op, *inputs, 0.1, out=torch.empty(0, dtype=torch.float16))
        kiln.set_num_threads(2)
        two = kiln.call_op(op, *inputs, 0.1, out=torch.empty(0, dtype=torch.float16))
    finally:
        kiln.set_num_threads(previous)
    assert torch.equal(one, two)
    assert_near(one, ref.paged_attention(*inputs, 0.1, compute=torch.float64), 4)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", LLM_DTYPES)
def test_query_and_out_as_row_views(call_op: Any, op: str, dtype: torch.dtype) -> None:
    # query = q of a qkv tensor viewed [seqs, heads, head_size] (sequences qkv.stride(0) apart),
    # out = the first columns of a wider buffer, whose other columns stay as they are.
    seqs, heads, kv_heads, head_size = 4, 4, 2, 64
    inputs = paged_inputs([30, 700, 1, 0], 16, heads, kv_heads, head_size, dtype, 9, op == PAGED)
    qkv = randn(seqs, (heads + 2 * kv_heads) * head_size, dtype=dtype, seed=1)
    query = qkv[:, : heads * head_size].view(seqs, heads, head_size)
    query.copy_(inputs[0])
    buffer = randn(seqs, heads * head_size + 48, dtype=dtype, seed=2)
    before = buffer.clone()
    out = buffer[:, : heads * head_size].view(seqs, heads, head_size)
    call_op(op, query, *inputs[1:], 0.125, out=out)
    assert_near(out, ref.paged_attention(*inputs, 0.125, compute=torch.float64), 4)
    assert torch.equal(buffer[:, heads * head_size :], before[:, heads * head_size :])


def test_bad_input(call_op: Any) -> None:
    flash = paged_inputs([5, 20], 16, 4, 2, 64, torch.float32, 0)
    paged = paged_inputs([5, 20], 16, 4, 2, 64, torch.float32, 0, paged=True)
    with raises(
        call_op, "5 dims are vLLM's paged layout; call kiln::paged_attention.paged_layout_out"
    ):
        attend(call_op, FLASH, paged, 0.1)
    with raises(call_op, "4 dims are the flash layout; call kiln::paged_attention.out"):
        attend(call_op, PAGED, flash, 0.1)
    query, key_cache, value_cache, tables, lens = paged
    with raises(call_op, "query has head_size 32 but key_cache has shape \\[7, 2, 16, 16, 4\\]"):
        attend(call_op, PAGED, (query[..., :32].contiguous(), *paged[1:]), 0.1)
    with raises(call_op, "value_cache has shape"):
        attend(
            call_op, PAGED, (query, key_cache, value_cache[:, :1].contiguous(), tables, lens), 0.1
        )
    with raises(call_op, "context_lens\\[1\\] = 33 is outside"):
        attend(call_op, PAGED, (*paged[:4], torch.tensor([5, 33], dtype=torch.int32)), 0.1)
    with raises(call_op, "query must have 3 dims"):
        attend(call_op, PAGED, (query.reshape(2, 256), *paged[1:]), 0.1)
    # Rows of out 64 elements apart but 256 long would be written over each other.
    overlapping = torch.empty(2 * 64 + 256).as_strided((2, 4, 64), (64, 64, 1))
    with raises(call_op, "out has rows 64 elements apart but 256 elements long"):
        call_op(PAGED, *paged, 0.1, out=overlapping)
