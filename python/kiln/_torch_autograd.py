"""Backward formulas of Kiln's differentiable operators (rms_norm, silu_and_mul,
rotary_embedding), registered with torch.library.register_autograd by kiln.torch_ops.

They differentiate the exact formula, ignoring the kernels' intermediate rounding to the
activation dtype (as torch's own half-precision backward passes do), and compute in float.
"""

from __future__ import annotations

from typing import Any

import torch


def _rms_norm_setup(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
    input, weight, epsilon = inputs
    ctx.save_for_backward(input, weight)
    ctx.epsilon = epsilon


def _rms_norm_backward(ctx: Any, grad: torch.Tensor) -> tuple[Any, ...]:
    input, weight = ctx.saved_tensors
    x = input.float()
    rstd = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + ctx.epsilon)
    normed = x * rstd
    grad_normed = grad.float() * weight.float()
    grad_input = rstd * (grad_normed - normed * (grad_normed * normed).mean(-1, keepdim=True))
    grad_weight = (grad.float() * normed).reshape(-1, weight.shape[0]).sum(0)
    return grad_input.to(input.dtype), grad_weight.to(weight.dtype), None


def _silu_and_mul_setup(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
    ctx.save_for_backward(inputs[0])


def _silu_and_mul_backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
    (input,) = ctx.saved_tensors
    x, y = input.float().chunk(2, dim=-1)
    sigmoid = torch.sigmoid(x)
    grad_x = grad.float() * y * sigmoid * (1 + x * (1 - sigmoid))
    grad_y = grad.float() * x * sigmoid
    return torch.cat((grad_x, grad_y), dim=-1).to(input.dtype)


def _rotary_setup(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
    positions, query, key, head_size, cos_sin_cache, is_neox = inputs
    ctx.save_for_backward(positions, cos_sin_cache)
    ctx.head_size, ctx.is_neox = head_size, is_neox
    ctx.query_shape, ctx.key_shape = query.shape, None if key is None else key.shape
    ctx.dtype = query.dtype


def _rotary_backward(ctx: Any, grad_query: Any, grad_key: Any) -> tuple[Any, ...]:
    """A rotation's transpose is the rotation by the opposite angle: the same op with the sines
    negated."""
    positions, cos_sin_cache = ctx.saved_tensors
    cos, sin = cos_sin_cache.chunk(2, dim=-1)
    inverse = torch.cat((cos, -sin), dim=-1)
    # An unused result has no gradient: it contributes zeros.
    if grad_query is None:
        grad_query = torch.zeros(ctx.query_shape, dtype=ctx.dtype)
    if ctx.key_shape is not None and grad_key is None:
        grad_key = torch.zeros(ctx.key_shape, dtype=ctx.dtype)
    key = grad_key.contiguous() if ctx.key_shape is not None else None
    grad_q, grad_k = torch.ops.kiln.rotary_embedding(
        positions, grad_query.contiguous(), key, ctx.head_size, inverse, ctx.is_neox
    )
    return None, grad_q, grad_k if key is not None else None, None, None, None


def register() -> None:
    torch.library.register_autograd(
        "kiln::rms_norm", _rms_norm_backward, setup_context=_rms_norm_setup
    )
    torch.library.register_autograd(
        "kiln::silu_and_mul", _silu_and_mul_backward, setup_context=_silu_and_mul_setup
    )
    torch.library.register_autograd(
        "kiln::rotary_embedding", _rotary_backward, setup_context=_rotary_setup
    )
