"""Checks of the Ascend kernels themselves (emulated): fallback disabled, on each SoC profile.

The op tests on backend "ascend" (conftest) check results with fallback allowed; these check
that an Ascend kernel really ran, on the shapes that matter to it (unaligned tails, several UB
tiles per core), and that it declines what it cannot take.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import torch
from op_compare import assert_same, tolerances_for

import kiln
import kiln.ascend

SOCS = ("Ascend910B", "Ascend310P")
# Lengths with tails that are not whole 32-byte blocks, and one that needs several UB tiles on
# every core (48 cores x ~11k float elements per tile).
SIZES = (1, 7, 33, 4099, 100_003, (1 << 20) + 5)


@contextmanager
def on_soc(name: str) -> Iterator[None]:
    previous = kiln.ascend.soc()
    kiln.ascend.set_soc(name)
    try:
        yield
    finally:
        kiln.ascend.set_soc(previous)


def float_dtypes(soc: str) -> list[torch.dtype]:
    """The floating dtypes the SoC computes: bfloat16 only on Ascend910B."""
    dtypes = [torch.float32, torch.float16]
    return dtypes + [torch.bfloat16] if soc == "Ascend910B" else dtypes


def cube_dtypes(soc: str) -> list[torch.dtype]:
    """What the SoC's cube multiplies: half everywhere, bfloat16 and float on Ascend910B."""
    if soc == "Ascend910B":
        return [torch.float16, torch.bfloat16, torch.float32]
    return [torch.float16]


def cube_operand(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    """Seeded values in [-2, 2), which the cube's products keep well inside half's range."""
    generator = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=generator) * 4 - 2).to(dtype)


def call_ascend(name: str, *args: Any, out: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """Runs `name` on the Ascend kernel only; returns the launches it made."""
    kiln.ascend.clear_launch_history()
    kiln.call_op(name, *args, out=out, backend="ascend", allow_fallback=False, **kwargs)
    return kiln.ascend.launch_history()


def rows_of(
    rows: int, n: int, stride: int, start: int, dtype: torch.dtype, seed: int
) -> torch.Tensor:
    """A row view [rows, n]: elements [start, start + n) of each row of a random [rows, stride]
    buffer (a slice such as x[:, :n], or one part of a split)."""
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(rows, stride, generator=generator).to(dtype)[:, start : start + n]


def laid_out_as(view: torch.Tensor, seed: int, fill: float | None = None) -> torch.Tensor:
    """A tensor of `view`'s shape, strides and offset in a buffer of its own, holding random
    values (or `fill`) there and everywhere around it."""
    span = view.storage_offset() + 1
    span += sum((size - 1) * stride for size, stride in zip(view.shape, view.stride(), strict=True))
    generator = torch.Generator().manual_seed(seed)
    buffer = torch.randn(span, generator=generator).to(view.dtype)
    if fill is not None:
        buffer.fill_(fill)
    return buffer.as_strided(view.shape, view.stride(), view.storage_offset())


def buffer_of(view: torch.Tensor) -> torch.Tensor:
    """The whole 1-d buffer `view` lies in."""
    return view.as_strided((view.untyped_storage().nbytes() // view.element_size(),), (1,), 0)


def assert_only_rows_written(out: torch.Tensor, before: torch.Tensor) -> None:
    """Of `out`'s buffer, which held `before` (buffer_of(out) cloned), only the view's own
    elements changed: nothing between or past its rows."""
    mask = torch.zeros(before.numel(), dtype=torch.bool)
    mask.as_strided(out.shape, out.stride(), out.storage_offset()).fill_(True)
    assert torch.equal(buffer_of(out)[~mask], before[~mask]), "elements outside the view changed"


def call_ascend_served(name: str, *args: Any, out: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """Runs `name` on backend "ascend" with fallback allowed and asserts that the Ascend kernel
    served the call (no fallback recorded); returns the launches it made."""
    kiln.reset_fallback_stats()
    kiln.ascend.clear_launch_history()
    kiln.call_op(name, *args, out=out, backend="ascend", **kwargs)
    fallbacks = [record for record in kiln.fallback_records() if record[0] == name]
    assert not fallbacks, f"{name} fell back: {fallbacks}"
    return kiln.ascend.launch_history()


def check_ascend(
    name: str,
    expected: torch.Tensor,
    *args: Any,
    out: torch.Tensor,
    atol: float = 0.0,
    **kwargs: Any,
) -> None:
    """The Ascend kernel's result equals torch's `expected` within the Ascend tolerances, and
    at least one kernel launched (for a non-empty out).

    On Ascend310P, whose vector unit saturates (docs/ascend.md), a vector kernel declines an
    input holding inf or NaN, and where torch's result of finite inputs is +-inf or NaN the
    kernel may give the dtype's largest finite value of that sign, or 0."""
    if kiln.ascend.soc() == "Ascend310P":
        if not all(_finite(arg) for arg in args):
            try:
                call_ascend(name, *args, out=out, **kwargs)
            except kiln.KilnError as error:
                assert "holding inf or NaN" in str(error), error
                return
        else:
            launches = call_ascend(name, *args, out=out, **kwargs)
            saturated = _saturated(expected)
            expected = torch.where(out.eq(saturated) & ~expected.eq(out), saturated, expected)
            assert_same(out, expected, atol=atol, tolerances=tolerances_for("ascend"))
            if expected.numel() > 0:
                assert launches, f"{name} ran no Ascend kernel"
            return
    launches = call_ascend(name, *args, out=out, **kwargs)
    assert_same(out, expected, atol=atol, tolerances=tolerances_for("ascend"))
    if expected.numel() > 0:
        assert launches, f"{name} ran no Ascend kernel"


def _finite(arg: object) -> bool:
    return not isinstance(arg, torch.Tensor) or bool(torch.isfinite(arg).all())


def _saturated(expected: torch.Tensor) -> torch.Tensor:
    """`expected` as a saturating vector unit stores it: +-inf as +-max, NaN as 0."""
    if not expected.is_floating_point():
        return expected
    largest = torch.finfo(expected.dtype).max
    return torch.nan_to_num(expected, nan=0.0, posinf=largest, neginf=-largest)


def check_declines(name: str, *args: Any, out: Any, reason: str, **kwargs: Any) -> None:
    """The Ascend kernel declines (naming `reason`); with fallback the portable kernel runs."""
    with pytest.raises(kiln.KilnError, match=f"does not take {reason}"):
        kiln.call_op(name, *args, out=out, backend="ascend", allow_fallback=False, **kwargs)
    kiln.reset_fallback_stats()
    kiln.call_op(name, *args, out=out, backend="ascend", **kwargs)
    assert any(record[0] == name and record[2] == "portable" for record in kiln.fallback_records())
