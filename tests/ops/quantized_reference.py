"""References for ExecuTorch's quantized operators (quantized_decomposed::): ExecuTorch 1.5.1's own
compiled kernels, which `import executorch.kernels.quantized` registers with torch as the .out
overloads, and torch's reference definitions of the functional overloads
(torch.ao.quantization.fx._decomposed).

ExecuTorch's kernels abort the process on input they do not take (BFloat16, Int zero points
read as Long, ...), so the tests call them only with input they document; `as_executorch` puts
parameters in the dtypes they read."""

from __future__ import annotations

import executorch.kernels.quantized  # noqa: F401  (registers ExecuTorch's kernels with torch)
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (torch's reference definitions)

OPS = torch.ops.quantized_decomposed

QUANTIZED_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.uint16, torch.int32]
FLOAT_DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64]


def bounds(dtype: torch.dtype) -> tuple[int, int]:
    info = torch.iinfo(dtype)
    return int(info.min), int(info.max)


def executorch_input(x: torch.Tensor) -> torch.Tensor:
    """ExecuTorch's quantize takes Float, Half and Double input; a BFloat16 input converts to
    Float exactly, and its quantization is the same."""
    return x.float() if x.dtype == torch.bfloat16 else x


def as_executorch(scales: torch.Tensor, zero_points: torch.Tensor | None) -> tuple:
    """Per-channel parameters in the dtypes ExecuTorch's kernels read: Double and Long."""
    return scales.double(), None if zero_points is None else zero_points.long()


def random_values(shape: tuple[int, ...], dtype: torch.dtype, seed: int, spread: float = 3.0):
    generator = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=generator, dtype=torch.float64) * spread).to(dtype)


def random_quantized(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    low, high = bounds(dtype)
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(low, high + 1, shape, generator=generator, dtype=torch.int64).to(dtype)


def zero_point_for(dtype: torch.dtype) -> int:
    """A zero point inside the dtype's range, off its middle."""
    low, high = bounds(dtype)
    return low + (high - low) // 2 + 3


def channel_params(
    count: int, dtype: torch.dtype, seed: int, scale_dtype: torch.dtype = torch.float64
) -> tuple[torch.Tensor, torch.Tensor]:
    """`count` scales in [0.005, 0.05) and zero points inside `dtype`'s range."""
    generator = torch.Generator().manual_seed(seed)
    scales = (torch.rand(count, generator=generator, dtype=torch.float64) * 0.045 + 0.005).to(
        scale_dtype
    )
    low, high = bounds(dtype)
    middle = low + (high - low) // 2
    zero_points = torch.randint(-5, 6, (count,), generator=generator) + middle
    return scales, zero_points
