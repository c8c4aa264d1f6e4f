"""Statistical checks for the random ops (rand, randn, native_dropout), whose values no two
generators share: Kiln's are its own (Philox4x32-10), ATen mode's are libtorch's. The checks hold
for any good generator, with bounds that a correct one fails about once in a million runs."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

# Kolmogorov-Smirnov: P(sqrt(n) * D > 2.7) is about 1e-6 for a continuous distribution.
KS_CRITICAL = 2.7
# Bounds on moments and correlations, in standard errors.
SIGMAS = 6.0


def ks_statistic(sample: torch.Tensor, cdf: Callable[[torch.Tensor], torch.Tensor]) -> float:
    """sup |F_n(x) - F(x)| of the sample against the continuous CDF `cdf`."""
    values = sample.double().flatten().sort().values
    n = values.numel()
    expected = cdf(values)
    above = torch.arange(1, n + 1, dtype=torch.float64) / n - expected
    below = expected - torch.arange(0, n, dtype=torch.float64) / n
    return float(torch.maximum(above, below).max())


def assert_distribution(
    sample: torch.Tensor,
    cdf: Callable[[torch.Tensor], torch.Tensor],
    *,
    mean: float,
    variance: float,
    fourth_moment: float,
    grid: float = 0.0,
) -> None:
    """The sample follows `cdf` (KS, plus `grid`: how far rounding to the dtype can move the
    CDF), has the given mean and variance, and no correlation between neighbours."""
    values = sample.double().flatten()
    n = values.numel()
    d = ks_statistic(values, cdf)
    assert d <= KS_CRITICAL / math.sqrt(n) + grid, f"KS statistic {d:.5f} for n={n}"
    sample_mean = float(values.mean())
    assert abs(sample_mean - mean) <= SIGMAS * math.sqrt(variance / n) + grid, sample_mean
    sample_variance = float(values.var())
    spread = math.sqrt((fourth_moment - variance**2) / n)
    assert abs(sample_variance - variance) <= SIGMAS * spread + 2 * grid, sample_variance
    centred = values - mean
    lag1 = float((centred[1:] * centred[:-1]).mean()) / variance
    assert abs(lag1) <= SIGMAS / math.sqrt(n - 1), f"neighbour correlation {lag1:.5f}"


def uniform_cdf(x: torch.Tensor) -> torch.Tensor:
    return x.clamp(0, 1)


def normal_cdf(x: torch.Tensor) -> torch.Tensor:
    return torch.special.ndtr(x)


def uniform_grid(dtype: torch.dtype) -> float:
    """The spacing of a dtype's values just below 1 (rand's values are multiples of it)."""
    return float(torch.finfo(dtype).eps) if dtype != torch.float64 else 0.0


def normal_grid(dtype: torch.dtype) -> float:
    """How far rounding a standard normal value to `dtype` can move its CDF: the density (at most
    0.4) times the rounding error, which is largest around |x| = 1 where the density is 0.24."""
    return 0.5 * float(torch.finfo(dtype).eps) if dtype != torch.float64 else 0.0


def bernoulli_bound(n: int, p: float) -> float:
    """How far the kept fraction of n Bernoulli(p) trials may stray from p."""
    return SIGMAS * math.sqrt(p * (1 - p) / n) + 1.0 / n
