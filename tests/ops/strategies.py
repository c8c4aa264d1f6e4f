"""Hypothesis strategies shared by the op tests: dtypes, shapes, broadcastable pairs, tensors."""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import strategies as st

INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
ALL_DTYPES = [*INT_DTYPES, torch.bool, *FLOAT_DTYPES]

dtypes = st.sampled_from(ALL_DTYPES)
int_dtypes = st.sampled_from(INT_DTYPES)
float_dtypes = st.sampled_from(FLOAT_DTYPES)


def shapes(min_dims: int = 0, max_dims: int = 4, min_side: int = 0, max_side: int = 5) -> Any:
    """Shapes including 0-dim ([]) and empty (a 0 side) ones."""
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(
        tuple
    )


@st.composite
def broadcastable_shapes(draw: Any, max_dims: int = 4, max_side: int = 5) -> tuple[tuple, tuple]:
    """A pair of shapes torch broadcasts together: the second drops leading dims and has some
    sides set to 1; either may come first."""
    base = draw(shapes(0, max_dims, 0, max_side))
    drop = draw(st.integers(0, len(base)))
    other = list(base[drop:])
    for i in range(len(other)):
        if draw(st.booleans()):
            other[i] = 1
    first, second = (base, tuple(other)) if draw(st.booleans()) else (tuple(other), base)
    return first, second


@st.composite
def unbroadcastable_shapes(draw: Any) -> tuple[tuple, tuple]:
    """A pair of shapes with a trailing-aligned dim whose sizes differ and neither is 1."""
    first = list(draw(shapes(1, 3, 2, 4)))
    second = first[draw(st.integers(0, len(first) - 1)) :]
    index = draw(st.integers(0, len(second) - 1))
    second[index] = draw(st.sampled_from([s for s in range(2, 7) if s != second[index]]))
    pair = (tuple(first), tuple(second))
    return pair if draw(st.booleans()) else (pair[1], pair[0])


def make_tensor(
    dtype: torch.dtype,
    shape: tuple,
    seed: int,
    *,
    special: bool = False,
    magnitude: float = 10.0,
    int_range: tuple[int, int] | None = None,
) -> torch.Tensor:
    """A contiguous tensor of random values from `seed`. Floats are normal with scale
    `magnitude` and, with `special`, sprinkled with nan, inf, -inf and signed zeros; integers
    span the dtype's full range unless `int_range` (inclusive) narrows it."""
    gen = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen).bool()
    if dtype.is_floating_point:
        values = torch.randn(shape, generator=gen, dtype=torch.float64) * magnitude
        if special and values.numel() > 0:
            picks = torch.randint(0, 8, shape, generator=gen)
            specials = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0])
            mask = picks < len(specials)
            values[mask] = specials[picks[mask]].to(torch.float64)
        return values.to(dtype)
    info = torch.iinfo(dtype)
    low, high = int_range if int_range is not None else (info.min, info.max)
    low, high = max(low, info.min), min(high, info.max)
    high = min(high + 1, 2**63 - 1)  # exclusive bound; int64's max itself is left out
    return torch.randint(low, high, shape, generator=gen, dtype=torch.int64).to(dtype)


seeds = st.integers(0, 2**31 - 1)


@st.composite
def tensors(
    draw: Any,
    dtype: torch.dtype | Any = dtypes,
    shape: tuple | Any = None,
    **kwargs: Any,
) -> torch.Tensor:
    """A tensor of a dtype and shape (values or strategies; any shape by default); floats
    sometimes hold nan/inf."""
    dtype = draw(dtype) if isinstance(dtype, st.SearchStrategy) else dtype
    shape = shapes() if shape is None else shape
    shape = draw(shape) if isinstance(shape, st.SearchStrategy) else shape
    kwargs.setdefault("special", draw(st.booleans()))
    return make_tensor(dtype, shape, draw(seeds), **kwargs)


def scalars_for(dtype: torch.dtype) -> Any:
    """Python numbers of the kind an argument paired with a `dtype` tensor usually gets."""
    if dtype == torch.bool:
        return st.booleans()
    if dtype.is_floating_point:
        return st.one_of(
            st.integers(-5, 5), st.floats(-10, 10, allow_nan=False, width=32), st.booleans()
        )
    return st.one_of(st.integers(-5, 5), st.booleans())


any_scalars = st.one_of(
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=True, allow_infinity=True, width=32),
)


def out_like(dtype: torch.dtype, shape: tuple | None) -> torch.Tensor:
    """An out tensor: pre-sized to `shape`, or empty (numel 0) for the kernel to resize."""
    return torch.empty(shape if shape is not None else (0,), dtype=dtype)


@st.composite
def out_tensors(
    draw: Any, result_dtype: torch.dtype, shape: tuple, other_dtype_p: float = 0.2
) -> Any:
    """An out tensor for a result of `result_dtype` and `shape`: usually of that dtype, sometimes
    of another (which the op may reject), either pre-sized or empty for the kernel to resize."""
    dtype = result_dtype
    if draw(st.floats(0, 1)) < other_dtype_p:
        dtype = draw(dtypes)
    return out_like(dtype, shape if draw(st.booleans()) else None)
