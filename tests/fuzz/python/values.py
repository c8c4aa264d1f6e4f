"""Random Python values for the bindings' fuzz harness: torch tensors of every dtype, layout and
memory arrangement, and the scalars, lists and wrong values an operator argument may be given.
Everything is drawn from a random.Random, so an input is reproducible from its seed."""

from __future__ import annotations

import decimal
import fractions
import random
from typing import Any

import numpy as np
import torch

# Every dtype torch has: those Kiln supports and those it must refuse.
DTYPES: tuple[torch.dtype, ...] = (
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.uint16,
    torch.uint32,
    torch.uint64,
    torch.bool,
    torch.complex32,
    torch.complex64,
    torch.complex128,
    torch.float8_e4m3fn,
    torch.float8_e5m2,
    torch.quint8,
    torch.qint8,
    torch.qint32,
)
# The dtypes that mostly matter (Kiln's kernels have loops for them).
COMMON_DTYPES: tuple[torch.dtype, ...] = (
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int32,
    torch.int64,
    torch.int8,
    torch.uint8,
    torch.bool,
)
QUANTIZED = {torch.quint8, torch.qint8, torch.qint32}
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def dtype(rng: random.Random) -> torch.dtype:
    return rng.choice(COMMON_DTYPES) if rng.random() < 0.8 else rng.choice(DTYPES)


def shape(rng: random.Random, max_rank: int = 4) -> list[int]:
    rank = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4, 5][: max(1, max_rank * 2 + 1)])
    return [rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5, 7]) for _ in range(rank)]


def _values(rng: random.Random, sizes: list[int], kind: torch.dtype) -> torch.Tensor:
    """A contiguous tensor of small values (sums and products stay exact in float32), sometimes
    with NaN, infinities, -0.0 or extreme values."""
    generator = torch.Generator().manual_seed(rng.getrandbits(32))
    base = torch.randint(-4, 5, sizes, generator=generator, dtype=torch.int64)
    if kind == torch.bool:
        return base > 0
    if kind.is_floating_point and rng.random() < 0.5:
        values = base.to(torch.float64) / 2
        if rng.random() < 0.2 and values.numel() > 0:
            flat = values.view(-1)
            special = [float("nan"), float("inf"), float("-inf"), -0.0, 1e300, -1e-300]
            for _ in range(rng.randint(1, 3)):
                flat[rng.randrange(flat.numel())] = rng.choice(special)
        return values.to(kind)
    if kind.is_complex:
        imag = torch.randint(-4, 5, sizes, generator=generator, dtype=torch.int64)
        return torch.complex(base.double(), imag.double()).to(kind)
    if kind in (torch.uint8, torch.uint16, torch.uint32, torch.uint64):
        base = base.abs()
    if rng.random() < 0.05 and base.numel() > 0 and kind in (torch.int32, torch.int64):
        info = torch.iinfo(kind)
        base.view(-1)[rng.randrange(base.numel())] = rng.choice([info.max, info.min])
    return base.to(kind)


def tensor(
    rng: random.Random,
    sizes: list[int] | None = None,
    kind: torch.dtype | None = None,
    huge: bool = True,
) -> torch.Tensor:
    """A tensor of `sizes` and `kind` (random when None), often not a plain contiguous one:
    transposed, strided, offset, expanded, channels-last, meta, sparse or quantized; with
    `huge`, sometimes a size-1 tensor expanded to billions of elements."""
    sizes = shape(rng) if sizes is None else list(sizes)
    kind = dtype(rng) if kind is None else kind
    if kind in QUANTIZED:
        plain = _values(rng, sizes, torch.float32)
        return torch.quantize_per_tensor(plain, 0.5, 3 if kind == torch.quint8 else 0, kind)
    if kind in (torch.float8_e4m3fn, torch.float8_e5m2):
        return _values(rng, sizes, torch.float32).to(kind)
    layout = rng.random()
    if layout < 0.55 or not sizes:
        return _values(rng, sizes, kind)
    if layout < 0.63:  # a transposed (permuted) view
        permutation = list(range(len(sizes)))
        rng.shuffle(permutation)
        inverse = [permutation.index(d) for d in range(len(sizes))]
        return _values(rng, [sizes[d] for d in permutation], kind).permute(inverse)
    if layout < 0.71:  # every other element of a larger tensor
        dim = rng.randrange(len(sizes))
        bigger = list(sizes)
        bigger[dim] = sizes[dim] * 2
        every_other: list[Any] = [slice(None)] * len(sizes)
        every_other[dim] = slice(None, None, 2)
        return _values(rng, bigger, kind)[tuple(every_other)]
    if layout < 0.78:  # an offset view into a storage with more before and after it
        flat = _values(rng, [_numel(sizes) + 5], kind)
        return flat[2 : 2 + _numel(sizes)].view(sizes)
    if layout < 0.85:  # broadcast: some dimension has stride 0
        dim = rng.randrange(len(sizes))
        one = list(sizes)
        one[dim] = 1
        return _values(rng, one, kind).expand(sizes)
    if layout < 0.89 and len(sizes) == 4:
        return _values(rng, sizes, kind).contiguous(memory_format=torch.channels_last)
    if layout < 0.92:
        return torch.empty(sizes, dtype=kind, device="meta")
    if layout < 0.95 and kind not in (torch.complex32, torch.uint16, torch.uint32, torch.uint64):
        return _values(rng, sizes, kind).to_sparse()
    if layout < 0.97 and huge:  # huge and without memory: a size-1 tensor expanded
        huge = list(sizes)
        dim = rng.randrange(len(huge))
        huge[dim] = 1
        # As large as torch allows: the product of the sizes (zeros too, which torch multiplies
        # in before it sees them) must stay within int64.
        huge[dim] = rng.choice([2**31, 2**40, 2**62]) // _numel([max(s, 1) for s in huge])
        return _values(rng, [1] * len(sizes), kind).expand(huge)
    return _values(rng, sizes, kind).requires_grad_(kind.is_floating_point or kind.is_complex)


def _numel(sizes: list[int]) -> int:
    total = 1
    for size in sizes:
        total *= size
    return total


def scalar(rng: random.Random) -> Any:
    """A value for a Scalar argument, of any Python (or numpy, or torch) type."""
    choice = rng.randrange(16)
    if choice < 4:
        return rng.randint(-3, 3)
    if choice < 7:
        return rng.choice([0.5, -1.5, 2.0, 0.0, -0.0, 1e-3])
    if choice == 7:
        return rng.choice([True, False])
    if choice == 8:
        return rng.choice([float("nan"), float("inf"), float("-inf"), 1e308, 5e-324])
    if choice == 9:
        return rng.choice([INT64_MAX, INT64_MIN, 2**64, -(2**70), 2**31])
    if choice == 10:
        return complex(rng.randint(-2, 2), rng.randint(-2, 2))
    if choice == 11:
        return rng.choice([np.int32(3), np.float16(1.5), np.bool_(True), np.uint64(2**64 - 1)])
    if choice == 12:
        return torch.tensor(rng.choice([2, 1.5, True]))  # a 0-dim tensor
    if choice == 13:
        return rng.choice([fractions.Fraction(1, 3), decimal.Decimal("2.5")])
    return wrong(rng)


def wrong(rng: random.Random) -> Any:
    """A value of some other type than the argument takes."""
    return rng.choice(
        [
            None,
            "x",
            b"\x00",
            [],
            [1, "a"],
            (None,),
            {"a": 1},
            object(),
            torch.float32,
            torch.channels_last,
            torch.zeros(2),
            [torch.zeros(1), 3],
            slice(1, 2),
            Ellipsis,
            float,
            np.zeros(3),
        ]
    )


def integer(rng: random.Random, rank: int = 4) -> Any:
    """An int argument: mostly a dimension or index near the valid range."""
    choice = rng.random()
    if choice < 0.8:
        return rng.randint(-rank - 2, rank + 2)
    if choice < 0.88:
        return rng.choice([INT64_MAX, INT64_MIN, 2**64, -(2**64), 2**31, -(2**31) - 1])
    if choice < 0.94:
        return rng.choice([True, np.int64(1), torch.tensor(1), 1.0, 1.5])
    return wrong(rng)


def int_list(rng: random.Random, rank: int = 4) -> Any:
    choice = rng.random()
    if choice < 0.75:
        values = [rng.randint(-rank - 1, rank + 2) for _ in range(rng.randint(0, 5))]
        return tuple(values) if rng.random() < 0.2 else values
    if choice < 0.82:
        return rng.randint(-2, 4)  # one int for an int[N]
    if choice < 0.9:
        return [rng.choice([INT64_MAX, INT64_MIN, 2**64, -1, 0]) for _ in range(rng.randint(1, 4))]
    if choice < 0.95:
        return torch.Size([rng.randint(0, 4) for _ in range(rng.randint(0, 4))])
    return rng.choice([[1.5], [None], ["a"], [True, 2], wrong(rng)])


def floating(rng: random.Random) -> Any:
    choice = rng.random()
    if choice < 0.7:
        return rng.choice([1e-5, 0.1, 0.0, 1.0, -1.0])
    if choice < 0.85:
        return rng.choice([float("nan"), float("inf"), -1e308, 2, True, np.float32(0.5)])
    return wrong(rng)
