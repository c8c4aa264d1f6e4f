"""The fake kernels: under FakeTensorMode every functional form gives the shapes and dtypes that
its Kiln kernel gives in eager mode, and out variants resize their outs the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
from llm_inputs import HEAD_SIZE, cos_sin_cache, int8_linear, paged, randn
from torch._subclasses.fake_tensor import FakeTensorMode

import kiln.torch_ops  # noqa: F401  (registers torch.ops.kiln)

ops = torch.ops.kiln


def _cases() -> list[tuple[str, Callable[[], tuple[Any, ...]], Callable[..., Any]]]:
    def rotary() -> tuple[torch.Tensor, torch.Tensor]:
        return torch.tensor([0, 3, 1]), randn(3, 2, HEAD_SIZE, dtype=torch.float16)

    return [
        (
            "rms_norm",
            lambda: (randn(2, 3, 8, dtype=torch.bfloat16), randn(8).bfloat16(), 1e-6),
            ops.rms_norm,
        ),
        (
            "fused_add_rms_norm",
            lambda: (randn(5, 8), randn(5, 8), randn(8), 1e-6),
            ops.fused_add_rms_norm,
        ),
        (
            "rotary_embedding",
            lambda: (*rotary(), randn(3, HEAD_SIZE).half(), HEAD_SIZE, cos_sin_cache(4, 8), True),
            ops.rotary_embedding,
        ),
        (
            "rotary_embedding_no_key",
            lambda: (*rotary(), None, HEAD_SIZE, cos_sin_cache(4, 8), False),
            ops.rotary_embedding,
        ),
        ("silu_and_mul", lambda: (randn(3, 1, 10, dtype=torch.float16),), ops.silu_and_mul),
        ("gelu_and_mul", lambda: (randn(4, 6), "tanh"), ops.gelu_and_mul),
        ("paged_attention", lambda: (*paged([3, 6]), 0.5), ops.paged_attention),
        (
            "paged_attention_paged_layout",
            lambda: (*paged([3, 6], dtype=torch.float16, paged_layout=True), 0.5),
            ops.paged_attention.paged_layout,
        ),
        ("weight_int8_linear", lambda: int8_linear(2, 16, 12), ops.weight_int8_linear),
    ]


def _meta(result: Any) -> list[tuple[tuple[int, ...], torch.dtype]]:
    results = result if isinstance(result, tuple) else (result,)
    return [(tuple(r.shape), r.dtype) for r in results]


@pytest.mark.parametrize(("name", "make", "op"), _cases(), ids=[c[0] for c in _cases()])
def test_fake_matches_eager(name: str, make: Callable[[], tuple[Any, ...]], op: Any) -> None:
    eager = _meta(op(*make()))
    with FakeTensorMode():
        fake = op(*make())
    assert _meta(fake) == eager


def test_out_variant_resizes_under_fake_tensors() -> None:
    with FakeTensorMode():
        out = torch.empty(0)
        result = ops.silu_and_mul.out(torch.empty(4, 12), out=out)
        assert result.shape == (4, 6)


def test_fake_refuses_an_odd_gate() -> None:
    with FakeTensorMode(), pytest.raises(kiln.KilnError, match="even last dim"):
        ops.silu_and_mul(torch.empty(4, 7))
