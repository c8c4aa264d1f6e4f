"""Common ops over every dtype but float32 (which the other families time), on 1M elements:
binary arithmetic, a comparison, where, unary ops, a reduction and conversions to and from float32.
A dtype that falls off its fast loop shows here as a ratio far above its neighbours'.
Combinations ATen itself refuses (neg of Bool, say) are left out."""

from __future__ import annotations

import torch

from cases import Case

DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float64,
]


def values(dtype: torch.dtype, seed: int, shape: tuple[int, ...] = (1 << 20,)) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen).bool()
    if dtype.is_floating_point:
        return torch.randn(shape, generator=gen).to(dtype)
    return torch.randint(0, 100, shape, generator=gen).to(dtype)


def dtype_cases(dtype: torch.dtype) -> list[Case]:
    name = str(dtype).removeprefix("torch.")
    a = values(dtype, 1)
    b = values(dtype, 2)
    rows = values(dtype, 3, (1024, 1024))
    mask = values(torch.bool, 4)
    floats = values(torch.float32, 5) * 50
    candidates = [
        Case(f"add 1M {name}", "aten::add.out", (a, b), {}, (dtype,)),
        Case(f"mul 1M {name}", "aten::mul.out", (a, b), {}, (dtype,)),
        Case(f"lt 1M {name}", "aten::lt.Tensor_out", (a, b), {}, (torch.bool,)),
        Case(f"maximum 1M {name}", "aten::maximum.out", (a, b), {}, (dtype,)),
        Case(f"where 1M {name}", "aten::where.self_out", (mask, a, b), {}, (dtype,)),
        Case(f"abs 1M {name}", "aten::abs.out", (a,), {}, (dtype,)),
        Case(f"neg 1M {name}", "aten::neg.out", (a,), {}, (dtype,)),
        Case(f"clamp 1M {name}", "aten::clamp.out", (a, 10, 50), {}, (dtype,)),
        Case(f"sum dim=1 1024x1024 {name}", "aten::sum.IntList_out", (rows, [1]), {}, (dtype,)),
        Case(f"sum dim=0 1024x1024 {name}", "aten::sum.IntList_out", (rows, [0]), {}, (dtype,)),
        Case(f"_to_copy {name}->float32", "aten::_to_copy.out", (a,), {}, (torch.float32,)),
        Case(f"_to_copy float32->{name}", "aten::_to_copy.out", (floats,), {}, (dtype,)),
    ]
    return [case for case in candidates if aten_accepts(case)]


def aten_accepts(case: Case) -> bool:
    try:
        case.aten(case.empty_outs())
    except (RuntimeError, NotImplementedError):
        return False
    return True


def cases() -> list[Case]:
    return [case for dtype in DTYPES for case in dtype_cases(dtype)]
