"""Backward of Kiln's differentiable operators (rms_norm, silu_and_mul, rotary_embedding).

The kernels take the activation dtypes only (Float, Half, BFloat16; no Double), so gradcheck runs
in float32 with a finite-difference step and tolerances fit for float32; the gradients are also
compared with autograd through the plain PyTorch references, computed in float64."""

from __future__ import annotations

import warnings

import llm_reference as ref
import pytest
import torch
from llm_inputs import HEAD_SIZE, cos_sin_cache, randn

import kiln.torch_ops  # noqa: F401  (registers torch.ops.kiln)

ops = torch.ops.kiln


def gradcheck(function: object, inputs: tuple[object, ...]) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*double precision.*")
        assert torch.autograd.gradcheck(function, inputs, eps=1e-2, atol=2e-3, rtol=1e-2)


def leaf(*shape: int, seed: int) -> torch.Tensor:
    return randn(*shape, seed=seed).requires_grad_()


def reference_grads(
    function: object, inputs: list[torch.Tensor], grad: torch.Tensor
) -> list[torch.Tensor]:
    doubles = [t.detach().double().requires_grad_() for t in inputs]
    result = function(*doubles)  # type: ignore[operator]
    return list(torch.autograd.grad(result, doubles, grad.double()))


def test_rms_norm_gradcheck() -> None:
    gradcheck(lambda x, w: ops.rms_norm(x, w, 1e-6), (leaf(3, 8, seed=0), leaf(8, seed=1)))


def test_rms_norm_grads_match_reference() -> None:
    x, w, grad = leaf(4, 2, 32, seed=0), leaf(32, seed=1), randn(4, 2, 32, seed=2)
    ops.rms_norm(x, w, 1e-6).backward(grad)
    expected = reference_grads(lambda a, b: ref.rms_norm(a, b, 1e-6), [x, w], grad)
    torch.testing.assert_close(x.grad, expected[0].float(), atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(w.grad, expected[1].float(), atol=1e-4, rtol=1e-4)


def test_silu_and_mul_gradcheck_and_reference() -> None:
    gradcheck(ops.silu_and_mul, (leaf(3, 10, seed=3),))
    x, grad = leaf(5, 16, seed=4), randn(5, 8, seed=5)
    ops.silu_and_mul(x).backward(grad)
    (expected,) = reference_grads(ref.silu_and_mul, [x], grad)
    torch.testing.assert_close(x.grad, expected.float(), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("is_neox", [True, False])
def test_rotary_embedding_gradcheck_and_reference(is_neox: bool) -> None:
    positions, cache = torch.tensor([0, 5, 2]), cos_sin_cache(8, HEAD_SIZE // 2)  # partial rotary

    def rotate(query: torch.Tensor, key: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        q, k = ops.rotary_embedding(positions, query, key, HEAD_SIZE, cache, is_neox)
        return q, k

    gradcheck(rotate, (leaf(3, 2 * HEAD_SIZE, seed=6), leaf(3, HEAD_SIZE, seed=7)))
    query, grad = leaf(3, 2 * HEAD_SIZE, seed=8), randn(3, 2 * HEAD_SIZE, seed=9)
    q, _ = ops.rotary_embedding(positions, query, None, HEAD_SIZE, cache, is_neox)
    q.backward(grad)

    def reference(x: torch.Tensor) -> torch.Tensor:
        return ref.rotary_embedding(positions, x, HEAD_SIZE, cache.double(), is_neox)

    (expected,) = reference_grads(reference, [query], grad)
    torch.testing.assert_close(query.grad, expected.float(), atol=1e-5, rtol=1e-5)
    # Only key's result used: query's gradient is zero.
    query.grad = None
    key = leaf(3, HEAD_SIZE, seed=10)
    _, k = ops.rotary_embedding(positions, query, key, HEAD_SIZE, cache, is_neox)
    k.sum().backward()
    assert torch.equal(query.grad, torch.zeros_like(query)) and key.grad is not None
