"""The result shape and dtype of each Kiln operator's functional form, for torch's fake tensors.

kiln.torch_ops allocates the outs of a real call with these rules too, so eager calls and traced
graphs agree. A rule takes the functional form's arguments (real or fake tensors) and returns one
(sizes, dtype) per result. It checks only what it needs to compute the shapes; the kernels check
everything else when the call runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from kiln._errors import KilnError

ResultSpec = tuple[tuple[int, ...], torch.dtype]


def _like(tensor: torch.Tensor) -> ResultSpec:
    return tuple(tensor.shape), tensor.dtype


def _rms_norm(input: torch.Tensor, *_: Any) -> list[ResultSpec]:
    return [_like(input)]


def _fused_add_rms_norm(input: torch.Tensor, *_: Any) -> list[ResultSpec]:
    return [_like(input), _like(input)]


def _rotary_embedding(
    positions: torch.Tensor, query: torch.Tensor, key: torch.Tensor | None, *_: Any
) -> list[ResultSpec]:
    # Without key the kernel resizes key_out to [0] (docs/custom_ops.md).
    key_spec = _like(key) if key is not None else ((0,), query.dtype)
    return [_like(query), key_spec]


def _gated(input: torch.Tensor, *_: Any) -> list[ResultSpec]:
    if input.dim() == 0 or input.shape[-1] % 2 != 0:
        raise KilnError(
            f"input of shape {list(input.shape)} must have an even last dim (x then y)",
            "InvalidArgument",
        )
    return [((*input.shape[:-1], input.shape[-1] // 2), input.dtype)]


def _paged_attention(query: torch.Tensor, *_: Any) -> list[ResultSpec]:
    return [_like(query)]


def _weight_int8_linear(input: torch.Tensor, weight: torch.Tensor, *_: Any) -> list[ResultSpec]:
    if input.dim() == 0 or weight.dim() != 2:
        raise KilnError(
            f"weight_int8_linear takes input [..., in_features] and weight [out_features, "
            f"in_features], got {list(input.shape)} and {list(weight.shape)}",
            "InvalidArgument",
        )
    return [((*input.shape[:-1], weight.shape[0]), input.dtype)]


# By the functional form's qualified name (the out variant's name without ".out").
RULES: dict[str, Callable[..., list[ResultSpec]]] = {
    "kiln::rms_norm": _rms_norm,
    "kiln::fused_add_rms_norm": _fused_add_rms_norm,
    "kiln::rotary_embedding": _rotary_embedding,
    "kiln::silu_and_mul": _gated,
    "kiln::gelu_and_mul": _gated,
    "kiln::paged_attention": _paged_attention,
    "kiln::weight_int8_linear": _weight_int8_linear,
}
