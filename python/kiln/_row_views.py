"""The arguments Kiln's kernels take as row views, on every backend: a tensor whose dim-0 rows
are each dense but may lie any distance apart, as serving engines pass ``q, k, v =
qkv.split(...)`` or a slice of a padded batch. The kernels address such a tensor by its dim-0
stride (RowView in kernels/portable/cpu/util/llm/arguments.h), so the bindings hand it over as
it is. Every other strided tensor reaches a kernel as a dense copy (kiln._strided)."""

from __future__ import annotations

import torch

ROW_VIEW_ARGUMENTS: dict[str, frozenset[str]] = {
    "kiln::rms_norm.out": frozenset({"input", "out"}),
    "kiln::fused_add_rms_norm.out": frozenset({"input", "residual", "out", "residual_out"}),
    "kiln::rotary_embedding.out": frozenset({"query", "key", "query_out", "key_out"}),
    "kiln::silu_and_mul.out": frozenset({"input", "out"}),
    "kiln::gelu_and_mul.out": frozenset({"input", "out"}),
    "kiln::reshape_and_cache": frozenset({"key", "value"}),
    "kiln::reshape_and_cache.paged_layout": frozenset({"key", "value"}),
    "kiln::paged_attention.out": frozenset({"query", "out"}),
    "kiln::paged_attention.paged_layout_out": frozenset({"query", "out"}),
}


def row_view_arguments(op: str) -> frozenset[str]:
    """The arguments of operator `op` its kernels take as row views."""
    return ROW_VIEW_ARGUMENTS.get(op, frozenset())


def is_row_view(value: torch.Tensor) -> bool:
    """Whether `value` has at least 2 dims, those after the first dense (size-1 dims may have any
    stride, as in torch), and a dim-0 stride that is not negative: the kernels' RowView. (A
    1-dim tensor's rows would be single elements; a strided one is copied.)"""
    if value.dim() < 2:
        return False
    expected = 1
    for size, stride in zip(reversed(value.shape[1:]), reversed(value.stride()[1:]), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return value.stride(0) >= 0
