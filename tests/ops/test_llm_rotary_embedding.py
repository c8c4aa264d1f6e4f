"""kiln::rotary_embedding.out against vLLM's rotary embedding written in plain PyTorch
(llm_reference): NeoX and GPT-J layouts, rot_dim below head_size, head sizes 64/80/128, grouped
kv heads, 2-D positions, no key, the in-place form, and bad input."""

from __future__ import annotations

from typing import Any

import llm_reference as ref
import pytest
import torch
from llm_checks import LLM_DTYPES, assert_near, randn
from op_compare import raises

OP = "kiln::rotary_embedding.out"


def cos_sin_cache(max_position: int, rot_dim: int, dtype: torch.dtype) -> torch.Tensor:
    """vLLM's cache: cos then sin of position * inverse frequency, [max_position, rot_dim]."""
    inv_freq = 1.0 / (10000 ** (torch.arange(0, rot_dim, 2, dtype=torch.float32) / rot_dim))
    freqs = torch.arange(max_position, dtype=torch.float32)[:, None] * inv_freq
    return torch.cat((freqs.cos(), freqs.sin()), dim=-1).to(dtype)


def run(
    call_op: Any,
    positions: torch.Tensor,
    q: torch.Tensor,
    k: Any,
    head_size: int,
    cache: torch.Tensor,
    neox: bool,
) -> tuple[torch.Tensor, torch.Tensor]:
    outs = (torch.empty(0, dtype=q.dtype), torch.empty(0, dtype=q.dtype))
    return call_op(OP, positions, q, k, head_size, cache, neox, out=outs)


@pytest.mark.parametrize("dtype", LLM_DTYPES)
@pytest.mark.parametrize("neox", [True, False])
@pytest.mark.parametrize(
    ("head_size", "rot_dim", "heads", "kv_heads"),
    [(64, 64, 4, 4), (80, 80, 3, 1), (128, 128, 8, 2), (128, 64, 2, 2), (80, 32, 2, 1)],
)
def test_matches_reference(
    call_op: Any,
    dtype: torch.dtype,
    neox: bool,
    head_size: int,
    rot_dim: int,
    heads: int,
    kv_heads: int,
) -> None:
    tokens = 7
    positions = torch.tensor([0, 5, 17, 3, 99, 17, 1])
    q = randn(tokens, heads * head_size, dtype=dtype, seed=1)
    k = randn(tokens, kv_heads * head_size, dtype=dtype, seed=2)
    cache = cos_sin_cache(100, rot_dim, dtype)
    q_out, k_out = run(call_op, positions, q, k, head_size, cache, neox)
    assert_near(q_out, ref.rotary_embedding(positions, q, head_size, cache, neox))
    assert_near(k_out, ref.rotary_embedding(positions, k, head_size, cache, neox))


@pytest.mark.parametrize("neox", [True, False])
def test_shapes_and_float_cache(call_op: Any, neox: bool) -> None:
    # 2-D positions [batch, seq], query split into [.., heads, head_size], a Float cache with
    # Half activations, and a query without key (key_out comes back empty).
    positions = torch.tensor([[3, 4, 5], [0, 1, 2]], dtype=torch.int32)
    q = randn(2, 3, 4, 64, dtype=torch.float16, seed=3)
    cache = cos_sin_cache(8, 64, torch.float32)
    q_out, k_out = run(call_op, positions, q, None, 64, cache, neox)
    assert_near(q_out, ref.rotary_embedding(positions, q, 64, cache, neox))
    assert k_out.shape == (0,)


def test_in_place(call_op: Any) -> None:
    positions = torch.tensor([2, 0, 1])
    q = randn(3, 2 * 64, seed=4)
    k = randn(3, 64, seed=5)
    cache = cos_sin_cache(4, 32, torch.float32)
    expected_q = ref.rotary_embedding(positions, q, 64, cache, True)
    expected_k = ref.rotary_embedding(positions, k, 64, cache, True)
    call_op(OP, positions, q, k, 64, cache, True, out=(q, k))
    assert_near(q, expected_q)
    assert_near(k, expected_k)


@pytest.mark.parametrize("neox", [True, False])
def test_row_views_in_place(call_op: Any, neox: bool) -> None:
    # vLLM's form (issue #37): q and k of q, k, v = qkv.split(...) rotate in place, partially
    # (rot_dim < head_size), and v is left alone.
    positions = torch.tensor([0, 5, 17, 3, 99])
    qkv = randn(5, (4 + 2 * 2) * 64, dtype=torch.float16, seed=6)
    q, k, v = torch.split(qkv, [4 * 64, 2 * 64, 2 * 64], dim=-1)
    cache = cos_sin_cache(100, 32, torch.float32)
    expected_q = ref.rotary_embedding(positions, q, 64, cache, neox)
    expected_k = ref.rotary_embedding(positions, k, 64, cache, neox)
    v_before = v.clone()
    call_op(OP, positions, q, k, 64, cache, neox, out=(q, k))
    assert_near(q, expected_q)
    assert_near(k, expected_k)
    assert torch.equal(v, v_before)


def test_bad_input(call_op: Any) -> None:
    positions = torch.tensor([0, 1])
    q = torch.randn(2, 128)
    k = torch.randn(2, 64)
    cache = cos_sin_cache(4, 64, torch.float32)
    with raises(call_op, "outside the cos_sin_cache's 4 positions"):
        run(call_op, torch.tensor([0, 4]), q, k, 64, cache, True)
    with raises(call_op, "outside the cos_sin_cache's 4 positions"):
        run(call_op, torch.tensor([-1, 0]), q, k, 64, cache, True)
    with raises(call_op, "not a multiple of head_size"):
        run(call_op, positions, q, k, 48, cache, True)
    with raises(call_op, "at most head_size"):
        run(call_op, positions, q, k, 32, cache, True)
    with raises(call_op, "positions has shape"):
        run(call_op, torch.tensor([0, 1, 2]), q, k, 64, cache, True)
    with raises(call_op, "key has dtype"):
        run(call_op, positions, q, k.half(), 64, cache, True)
    with raises(call_op, "positions has dtype"):
        run(call_op, positions.float(), q, k, 64, cache, True)
    with raises(call_op, "head_size must be positive"):
        run(call_op, positions, q, k, 0, cache, True)
