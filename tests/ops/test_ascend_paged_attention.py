"""The Ascend kernel of kiln::paged_attention.out and .paged_layout_out (op_paged_attention) on
both SoC profiles, fallback disabled, against vLLM's semantics in float64 (llm_reference): vLLM's
paged layout, v2's partitions of long contexts (513, 1500 and 4000 tokens, block sizes 8, 16 and
32, grouped-query heads, alibi), partitions spread over the cores and combined by a second
launch, query and out as row views read and written where they lie (no copy, no fallback), and
what the kernel declines. The flash layout's short contexts: test_llm_kv_cache.py."""

from __future__ import annotations

import llm_reference as ref
import pytest
import torch
from ascend_checks import SOCS, call_ascend, check_ascend, check_declines, float_dtypes, on_soc
from llm_checks import paged_inputs, randn

import kiln

FLASH = "kiln::paged_attention.out"
PAGED = "kiln::paged_attention.paged_layout_out"
OPS = [FLASH, PAGED]
KERNELS = {torch.float32: "float", torch.float16: "half", torch.bfloat16: "bf16"}


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(
    ("block_size", "heads", "kv_heads", "head_size"),
    [(8, 4, 4, 64), (16, 8, 2, 80), (32, 32, 8, 128), (16, 6, 1, 128)],
)
def test_paged_layout(soc: str, block_size: int, heads: int, kv_heads: int, head_size: int) -> None:
    lengths = [1, 37, 0, 200, block_size, 2 * block_size + 1]
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            inputs = paged_inputs(lengths, block_size, heads, kv_heads, head_size, dtype, 7, True)
            slopes = torch.rand(heads) if heads == 6 else None
            expected = ref.paged_attention(*inputs, head_size**-0.5, slopes, torch.float64)
            out = torch.empty(0, dtype=dtype)
            check_ascend(PAGED, expected, *inputs, head_size**-0.5, slopes, out=out)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("block_size", [8, 16, 32])
def test_v2_partitions(soc: str, op: str, block_size: int) -> None:
    # Two, three and eight partitions beside contexts of one; 8 query heads over 2 kv heads. The
    # partitions go to the cores as units of their own, and a second launch combines them.
    lengths = [513, 7, 1500, 4000]
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            inputs = paged_inputs(lengths, block_size, 8, 2, 64, dtype, block_size, op == PAGED)
            expected = ref.paged_attention(*inputs, 0.125, compute=torch.float64)
            out = torch.empty(0, dtype=dtype)
            launches = call_ascend(op, *inputs, 0.125, out=out)
            assert [launch["kernel"] for launch in launches] == [
                f"kiln_paged_attention_{KERNELS[dtype]}"
            ] * 2
            assert launches[0]["blocks"] > 1
            check_ascend(op, expected, *inputs, 0.125, out=out)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("op", OPS)
def test_v2_partitions_with_alibi_and_int64_tables(soc: str, op: str) -> None:
    inputs = paged_inputs([1100, 600], 16, 6, 2, 128, torch.float16, 3, op == PAGED)
    query, key_cache, value_cache, tables, lengths = inputs
    slopes = torch.rand(6) * 0.01
    expected = ref.paged_attention(*inputs, 0.1, slopes, torch.float64)
    with on_soc(soc):
        out = torch.empty(0, dtype=torch.float16)
        check_ascend(
            op,
            expected,
            query,
            key_cache,
            value_cache,
            tables.long(),
            lengths.long(),
            0.1,
            slopes,
            out=out,
        )


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("op", OPS)
def test_query_and_out_as_row_views(soc: str, op: str) -> None:
    # query = q of a qkv tensor and out = the first columns of a wider buffer; the kernel reads and
    # writes them where they lie: no copy, no fallback, the buffer's other columns untouched.
    seqs, heads, kv_heads, head_size = 4, 8, 2, 64
    dtype = torch.float16
    inputs = paged_inputs([30, 700, 1, 0], 16, heads, kv_heads, head_size, dtype, 9, op == PAGED)
    qkv = randn(seqs, (heads + 2 * kv_heads) * head_size, dtype=dtype, seed=1)
    query = qkv[:, : heads * head_size].view(seqs, heads, head_size)
    query.copy_(inputs[0])
    buffer = randn(seqs, heads * head_size + 96, dtype=dtype, seed=2)
    before = buffer.clone()
    out = buffer[:, : heads * head_size].view(seqs, heads, head_size)
    expected = ref.paged_attention(*inputs, 0.125, compute=torch.float64)
    kiln.reset_fallback_stats()
    kiln.reset_strided_copies()
    with on_soc(soc):
        kiln.call_op(op, query, *inputs[1:], 0.125, out=out, backend="ascend")
        check_ascend(op, expected, query, *inputs[1:], 0.125, out=out)
    assert not [record for record in kiln.fallback_records() if record[0] == op]
    assert op not in kiln.strided_copies()
    assert torch.equal(buffer[:, heads * head_size :], before[:, heads * head_size :])


def test_declines() -> None:
    # Heads of 8 halves (16 bytes) are not whole 32-byte rows; invalid input declines with the
    # portable kernel's message, which the portable kernel then reports.
    inputs = paged_inputs([5, 20], 16, 4, 2, 8, torch.float16, 0, paged=True)
    out = torch.empty(0, dtype=torch.float16)
    check_declines(PAGED, *inputs, 0.1, out=out, reason="head_size 8")
    flash = paged_inputs([5, 20], 16, 4, 2, 64, torch.float32, 0)
    with pytest.raises(kiln.KilnError, match="refuses \\(key_cache has shape .*: 4 dims are the"):
        call_ascend(PAGED, *flash, 0.1, out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match="4 dims are the flash layout"):
        kiln.call_op(PAGED, *flash, 0.1, out=torch.empty(0), backend="ascend")
