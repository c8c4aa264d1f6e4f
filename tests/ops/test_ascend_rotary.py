"""The Ascend kernel of kiln::rotary_embedding.out (op_rotary) against vLLM's semantics in plain
PyTorch (llm_reference: computed in float, rounded once), on both SoC profiles, with fallback
disabled: NeoX and GPT-J, partial rotary, grouped-query key heads or no key, a Float cache with
16-bit heads, the in-place form, the issue's shape (16 tokens, 32 heads of 128), pair counts that
are not whole blocks, tokens with more heads than one UB tile, and row views (q and k of a split
qkv, in place or into outs that are row views)."""

from __future__ import annotations

import llm_reference as ref
import pytest
import torch
from ascend_checks import (
    SOCS,
    assert_only_rows_written,
    buffer_of,
    call_ascend,
    call_ascend_served,
    check_declines,
    float_dtypes,
    laid_out_as,
    on_soc,
)
from llm_checks import randn
from op_compare import assert_same, tolerances_for

import kiln

ROTARY = "kiln::rotary_embedding.out"

# (tokens, query heads, key heads, head_size, rot_dim): the shape, partial rotary with
# pair counts that are not whole blocks, no key, and 600 heads a token (several UB tiles).
SHAPES = [
    (16, 32, 32, 128, 128),
    (5, 3, 1, 80, 40),
    (7, 2, 2, 64, 6),
    (3, 4, 0, 32, 32),
    (2, 600, 8, 128, 128),
]


def run(
    soc: str, shape: tuple[int, ...], dtype: torch.dtype, cache_dtype: torch.dtype, neox: bool
) -> None:
    tokens, q_heads, k_heads, head_size, rot_dim = shape
    positions = torch.randint(0, 50, (tokens,), generator=torch.Generator().manual_seed(tokens))
    cache = randn(50, rot_dim, dtype=cache_dtype, seed=1)
    query = randn(tokens, q_heads * head_size, dtype=dtype, seed=2)
    key = randn(tokens, k_heads, head_size, dtype=dtype, seed=3) if k_heads else None
    outs = (torch.empty(0, dtype=dtype), torch.empty(0, dtype=dtype))
    with on_soc(soc):
        launches = call_ascend(ROTARY, positions, query, key, head_size, cache, neox, out=outs)
    assert len(launches) == 1 and launches[0]["kernel"].startswith("kiln_rotary_")
    tolerances = tolerances_for("ascend")
    assert_same(
        outs[0],
        ref.rotary_embedding(positions, query, head_size, cache, neox),
        tolerances=tolerances,
    )
    if key is None:
        assert outs[1].shape == (0,)
    else:
        expected = ref.rotary_embedding(positions, key, head_size, cache, neox)
        assert_same(outs[1], expected, tolerances=tolerances)


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("neox", [True, False])
@pytest.mark.parametrize("shape", SHAPES)
def test_rotary_matches_reference(soc: str, neox: bool, shape: tuple[int, ...]) -> None:
    for dtype in float_dtypes(soc):
        for cache_dtype in sorted({dtype, torch.float32}, key=str):
            run(soc, shape, dtype, cache_dtype, neox)


def test_rotary_in_place() -> None:
    positions = torch.tensor([3, 0, 7])
    cache = randn(8, 64, seed=1)
    query, key = randn(3, 4, 64, dtype=torch.float16, seed=2), randn(3, 64, dtype=torch.float16)
    expected_q = ref.rotary_embedding(positions, query, 64, cache, True)
    expected_k = ref.rotary_embedding(positions, key, 64, cache, True)
    call_ascend(ROTARY, positions, query, key, 64, cache, True, out=(query, key))
    assert_same(query, expected_q, tolerances=tolerances_for("ascend"))
    assert_same(key, expected_k, tolerances=tolerances_for("ascend"))


def test_rotary_declines_what_it_cannot_take() -> None:
    positions = torch.tensor([0, 9])
    query = randn(2, 64)
    outs = (torch.empty(0), torch.empty(0))
    with pytest.raises(kiln.KilnError, match="does not take a position outside the cos_sin_cache"):
        call_ascend(ROTARY, positions, query, None, 64, randn(8, 64), True, out=outs)
    with pytest.raises(kiln.KilnError, match="positions\\[1\\] = 9 is outside"):
        kiln.call_op(
            ROTARY, positions, query, None, 64, randn(8, 64), True, out=outs, backend="ascend"
        )
    with on_soc("Ascend310P"):
        check_declines(
            ROTARY,
            torch.tensor([0, 1]),
            query.bfloat16(),
            None,
            64,
            randn(8, 64),
            True,
            out=(torch.empty(0, dtype=torch.bfloat16),) * 2,
            reason="BFloat16",
        )
    check_declines(
        ROTARY,
        torch.tensor([0, 1]),
        query,
        None,
        64,
        randn(8, 64, dtype=torch.float16),
        True,
        out=outs,
        reason="a Half cos_sin_cache with Float heads",
    )


def test_rotary_on_310p_declines_inf_and_nan() -> None:
    """Ascend310P's vector unit saturates (docs/ascend.md): non-finite heads go to portable."""
    query = randn(2, 64)
    query[1, 3] = float("nan")
    outs = (torch.empty(0), torch.empty(0))
    with on_soc("Ascend310P"):
        check_declines(
            ROTARY,
            torch.tensor([0, 1]),
            query,
            None,
            64,
            randn(8, 64),
            True,
            out=outs,
            reason="query holding inf or NaN",
        )
    assert torch.isnan(outs[0][1, 3])


# Row views (issue #37): vLLM rotates q and k of q, k, v = qkv.split(...) in place, and Kiln
# takes outs that are row views of another buffer. The host stages each token's heads from where
# its row lies and puts them back there, with no fallback: each result matches the reference,
# and bit for bit the same call on dense copies, and nothing between the rows changes.


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("neox", [True, False])
@pytest.mark.parametrize("shape", [(16, 32, 8, 128, 128), (5, 3, 1, 80, 40), (4, 2, 0, 64, 64)])
def test_rotary_row_views(soc: str, neox: bool, shape: tuple[int, ...]) -> None:
    tokens, q_heads, k_heads, head_size, rot_dim = shape
    positions = torch.randint(0, 50, (tokens,), generator=torch.Generator().manual_seed(tokens))
    with on_soc(soc):
        for dtype in float_dtypes(soc):
            cache = randn(50, rot_dim, dtype=dtype, seed=1)
            sizes = [q_heads * head_size, k_heads * head_size, k_heads * head_size]
            qkv = randn(tokens, sum(sizes), dtype=dtype, seed=2)
            q, k, v = torch.split(qkv, sizes, dim=-1)
            key = k.view(tokens, k_heads, head_size) if k_heads else None
            expected_q = ref.rotary_embedding(positions, q, head_size, cache, neox)
            expected_k = (
                None
                if key is None
                else ref.rotary_embedding(positions, key, head_size, cache, neox)
            )
            dense = (torch.empty(0, dtype=dtype), torch.empty(0, dtype=dtype))
            dense_key = key.contiguous() if key is not None else None
            call_ascend(
                ROTARY, positions, q.contiguous(), dense_key, head_size, cache, neox, out=dense
            )
            tolerances = tolerances_for("ascend")
            # Into outs that are row views of buffers of their own.
            outs = (laid_out_as(q, seed=3), laid_out_as(key if key is not None else q, seed=4))
            before = [buffer_of(out).clone() for out in outs]
            served = call_ascend_served(ROTARY, positions, q, key, head_size, cache, neox, out=outs)
            assert len(served) == 1
            assert_same(outs[0], expected_q, tolerances=tolerances)
            assert torch.equal(outs[0], dense[0])
            assert_only_rows_written(outs[0], before[0])
            if expected_k is not None:
                assert_same(outs[1], expected_k, tolerances=tolerances)
                assert torch.equal(outs[1], dense[1])
                assert_only_rows_written(outs[1], before[1])
            # vLLM's form: in place in qkv, v untouched.
            v_before = v.clone()
            outs_in_place = (q, key if key is not None else torch.empty(0, dtype=dtype))
            assert call_ascend_served(
                ROTARY, positions, q, key, head_size, cache, neox, out=outs_in_place
            )
            assert torch.equal(q, dense[0])
            if key is not None:
                assert torch.equal(key, dense[1])
            assert torch.equal(v, v_before)


def test_rotary_refuses_out_rows_that_overlap() -> None:
    positions = torch.tensor([0, 1, 2])
    outs = (torch.zeros(200).as_strided((3, 64), (32, 1)), torch.empty(0))
    with pytest.raises(kiln.KilnError, match="rows overlap"):
        kiln.call_op(
            ROTARY,
            positions,
            randn(3, 64),
            None,
            64,
            randn(8, 64),
            True,
            out=outs,
            backend="ascend",
        )
    assert not outs[0].any()
