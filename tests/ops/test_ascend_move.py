"""The Ascend data-movement kernel (permute, expand, select, split, cat, clone, embedding) and
the host/device copies against torch, on both SoC profiles, with fallback disabled."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from ascend_checks import SOCS, call_ascend, check_ascend, check_declines, on_soc

import kiln
import kiln.ascend

# Every dtype a move takes: each element width, the 16-bit floats (bfloat16 on both SoCs: a
# move computes nothing) and bool.
DTYPES = (
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.float16,
    torch.bfloat16,
    torch.int32,
    torch.float32,
    torch.int64,
    torch.float64,
)


def values(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    """Distinct values where the dtype allows (a misplaced element shows)."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, shape, generator=g, dtype=torch.int64).to(dtype)


def empty(dtype: torch.dtype) -> torch.Tensor:
    return torch.empty(0, dtype=dtype)


# (shape, dims): row moves (last dim kept), true transposes, tails, rows longer than a UB tile.
PERMUTES = [
    ((2, 5, 2, 8), (0, 2, 1, 3)),
    ((3, 7), (1, 0)),
    ((33, 70), (1, 0)),
    ((2, 8, 8, 3), (0, 3, 1, 2)),
    ((2, 3, 8, 8), (0, 2, 3, 1)),
    ((3, 40, 50, 2), (2, 1, 3, 0)),
    ((4, 3, 5, 6, 7), (4, 2, 0, 3, 1)),
    ((1, 1, 7), (2, 0, 1)),
    ((5,), (0,)),
    ((2, 70_001), (1, 0)),
    ((3, 70_001), (0, 1)),
]


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(("shape", "dims"), PERMUTES)
def test_permute_copy(soc: str, shape: tuple[int, ...], dims: tuple[int, ...]) -> None:
    with on_soc(soc):
        for dtype in DTYPES:
            a = values(shape, dtype)
            expected = a.permute(dims).contiguous()
            check_ascend("aten::permute_copy.out", expected, a, list(dims), out=empty(dtype))


def test_permute_copy_larger_than_a_tile() -> None:
    """Many blocks, several UB tiles per core: a 1 Mi-element transpose and row move."""
    for dtype in (torch.float16, torch.float32, torch.int64):
        a = values((1024, 1029), dtype)
        check_ascend("aten::permute_copy.out", a.t().contiguous(), a, [1, 0], out=empty(dtype))
        b = values((64, 3, 5467), dtype)
        expected = b.permute(1, 0, 2).contiguous()
        check_ascend("aten::permute_copy.out", expected, b, [1, 0, 2], out=empty(dtype))


EXPANDS = [
    ((1, 16), [5, 16]),
    ((2, 1, 8), [2, 5, 8]),
    ((3, 1), [3, 33]),
    ((1,), [4, 3, 7]),
    ((7,), [2, -1]),
    ((1, 1), [100, 1001]),
    ((1,), [100_003]),
    ((2, 1, 1, 5), [-1, 3, 4, -1]),
]


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize(("shape", "size"), EXPANDS)
def test_expand_copy(soc: str, shape: tuple[int, ...], size: list[int]) -> None:
    with on_soc(soc):
        for dtype in DTYPES:
            a = values(shape, dtype)
            expected = a.expand(size).contiguous()
            check_ascend("aten::expand_copy.out", expected, a, size, out=empty(dtype))


@pytest.mark.parametrize("soc", SOCS)
def test_select_copy(soc: str) -> None:
    with on_soc(soc):
        for dtype in DTYPES:
            a = values((3, 5, 33), dtype)
            for dim, index in ((0, 1), (1, -1), (2, 7), (-1, 32)):
                expected = a.select(dim, index).contiguous()
                check_ascend("aten::select_copy.int_out", expected, a, dim, index, out=empty(dtype))


@pytest.mark.parametrize("soc", SOCS)
def test_split_with_sizes_copy(soc: str) -> None:
    with on_soc(soc):
        for dtype in DTYPES:
            a = values((2, 5, 48), dtype)
            for sizes, dim in (([16, 16, 16], -1), ([1, 3, 1], 1), ([2, 0], 0), ([7, 41], 2)):
                # A Tensor[] out is passed as fixed-shape views: outs of the result shapes.
                expected = a.split(sizes, dim)
                outs = [torch.empty(e.shape, dtype=dtype) for e in expected]
                launches = call_ascend(
                    "aten::split_with_sizes_copy.out", a, sizes, dim, out=(outs,)
                )
                assert len(launches) == sum(e.numel() > 0 for e in expected)
                for got, want in zip(outs, expected, strict=True):
                    torch.testing.assert_close(got, want.contiguous(), rtol=0, atol=0)


@pytest.mark.parametrize("soc", SOCS)
def test_cat(soc: str) -> None:
    with on_soc(soc):
        for dtype in DTYPES:
            a, b, c = (
                values((2, 3, 9), dtype, 1),
                values((2, 5, 9), dtype, 2),
                values((2, 1, 9), dtype),
            )
            check_ascend("aten::cat.out", torch.cat([a, b, c], 1), [a, b, c], 1, out=empty(dtype))
            x, y = values((4, 3), dtype, 3), values((4, 6), dtype, 4)
            check_ascend("aten::cat.out", torch.cat([x, y], -1), [x, y], -1, out=empty(dtype))
            e = values((0, 3), dtype)
            check_ascend("aten::cat.out", torch.cat([x, e, x], 0), [x, e, x], 0, out=empty(dtype))


@pytest.mark.parametrize("soc", SOCS)
def test_clone_dim_order(soc: str) -> None:
    name = "dim_order_ops::_clone_dim_order.out"
    with on_soc(soc):
        for dtype in DTYPES:
            a = values((2, 3, 5, 7), dtype)
            check_ascend(name, a, a, dim_order=[0, 1, 2, 3], out=empty(dtype))
            last = a.contiguous(memory_format=torch.channels_last)
            out = torch.empty_like(last)
            check_ascend(name, last, a, dim_order=[0, 2, 3, 1], out=out)
            assert out.stride() == last.stride()
            back = torch.empty_like(a)
            check_ascend(name, a, last, dim_order=[0, 1, 2, 3], out=back)
            big = values((3, 100_003), dtype)
            check_ascend(name, big, big, out=empty(dtype))


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_embedding(soc: str, index_dtype: torch.dtype) -> None:
    with on_soc(soc):
        for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int8):
            for rows, width in ((10, 16), (7, 1), (50, 33), (3, 5000)):
                weight = values((rows, width), dtype)
                g = torch.Generator().manual_seed(rows)
                indices = torch.randint(0, rows, (4, 3), generator=g).to(index_dtype)
                expected = torch.nn.functional.embedding(indices, weight)
                check_ascend("aten::embedding.out", expected, weight, indices, out=empty(dtype))
            one = torch.tensor([2], dtype=index_dtype)
            weight = values((5, 1), dtype)
            check_ascend("aten::embedding.out", weight[2:3], weight, one, out=empty(dtype))


def test_embedding_out_of_range_is_an_error() -> None:
    """The Ascend wrapper declines, and the portable kernel reports the index."""
    weight = torch.randn(5, 4)
    for bad in (5, -1):
        indices = torch.tensor([0, bad])
        with pytest.raises(kiln.KilnError, match="does not take an index out of range"):
            kiln.call_op(
                "aten::embedding.out",
                weight,
                indices,
                out=torch.empty(0),
                backend="ascend",
                allow_fallback=False,
            )
        with pytest.raises(kiln.KilnError, match="index out of range in self"):
            kiln.call_op(
                "aten::embedding.out", weight, indices, out=torch.empty(0), backend="ascend"
            )


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("op", ["et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out"])
def test_device_copies_go_through_device_memory(soc: str, op: str) -> None:
    with on_soc(soc):
        for dtype in DTYPES:
            a = values((3, 7, 5), dtype)
            out = empty(dtype)
            kiln.reset_fallback_stats()
            kiln.call_op(op, a, out=out, backend="ascend", allow_fallback=False)
            torch.testing.assert_close(out, a, rtol=0, atol=0)
            assert not kiln.fallback_records()


def test_moves_decline_what_they_cannot_take() -> None:
    c = torch.randn(2, 3).to(torch.complex64)
    out = torch.empty(0, dtype=torch.complex64)
    check_declines(
        "aten::permute_copy.out", c, [1, 0], out=out, reason="self of dtype ComplexFloat"
    )
    a = torch.randn(2, 3)
    check_declines(
        "aten::cat.out", [a, a.double()], 0, out=torch.empty(0), reason="tensors of dtype Double"
    )


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("aten::permute_copy.out", ([0, 0],), "duplicate dims"),
        ("aten::expand_copy.out", ([2, 4],), "must match the existing size"),
        ("aten::select_copy.int_out", (1, 3), "out of range"),
        ("aten::cat.out", None, "Sizes of tensors must match"),
    ],
)
def test_invalid_arguments_keep_the_portable_error(name: str, args: Any, message: str) -> None:
    """The Ascend wrappers decline bad arguments; the portable kernel words the error."""
    a = torch.randn(2, 3)
    call_args = ([a, torch.randn(3, 3)], 1) if args is None else (a, *args)
    with pytest.raises(kiln.KilnError, match="does not take"):
        kiln.call_op(name, *call_args, out=torch.empty(0), backend="ascend", allow_fallback=False)
    with pytest.raises(kiln.KilnError, match=message):
        kiln.call_op(name, *call_args, out=torch.empty(0), backend="ascend")


def test_launch_report_of_a_transpose() -> None:
    a = values((256, 256), torch.float16)
    launches = call_ascend("aten::permute_copy.out", a, [1, 0], out=empty(torch.float16))
    assert [launch["kernel"] for launch in launches] == ["kiln_move_b16"]
    assert launches[0]["blocks"] > 1


def test_empty_outputs() -> None:
    """Zero-size outputs launch nothing and still get their shape."""
    a = torch.randn(0, 3)
    out = torch.empty(5)
    check_ascend("aten::permute_copy.out", a.t().contiguous(), a, [1, 0], out=out)
    assert out.shape == (3, 0)
