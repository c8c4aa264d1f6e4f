"""aten::cat.out and stack.out against torch: shapes, legacy empty inputs, dtype promotion."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import dtypes, make_tensor, out_tensors, seeds, shapes

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def result_shape(fn: Any, *args: Any) -> tuple | None:
    try:
        return tuple(fn(*args).shape)
    except (RuntimeError, IndexError, ValueError):
        return None


@st.composite
def tensor_lists(draw: Any, vary_dim: bool) -> tuple[list[torch.Tensor], int]:
    """1-4 tensors of a shared shape (differing along `dim` when vary_dim), usually one dtype,
    sometimes mixed; cat lists sometimes hold legacy empty 1-D tensors or mismatched shapes."""
    base = list(draw(shapes(1 if vary_dim else 0, 4, 0, 4)))
    extent = max(len(base), 1) + (0 if vary_dim else 1)
    dim = draw(st.integers(-extent - 1, extent))
    first_dtype = draw(dtypes)
    count = draw(st.integers(1, 4))
    result = []
    for _ in range(count):
        shape = list(base)
        if vary_dim and -len(shape) <= dim < len(shape):
            shape[dim] = draw(st.integers(0, 3))
        if draw(st.integers(0, 15)) == 0 and shape:
            shape[draw(st.integers(0, len(shape) - 1))] += 1  # a mismatch torch rejects
        if vary_dim and draw(st.integers(0, 7)) == 0:
            shape = [0]  # torch.cat skips these
        dtype = first_dtype if draw(st.booleans()) else draw(dtypes)
        result.append(
            make_tensor(dtype, tuple(shape), draw(seeds), special=dtype.is_floating_point)
        )
    return result, dim


def check_join(call_op: Any, name: str, torch_op: Any, args: tuple, out: torch.Tensor) -> None:
    """check_op, plus torch's TypeError (an out dtype the inputs cannot be cast to)."""
    try:
        torch_op(*args, out=out.clone())
    except TypeError:
        with pytest.raises(kiln.KilnError, match="can't be cast"):
            call_op(name, *args, out=out.clone())
        return
    except (RuntimeError, IndexError, ValueError):
        pass
    check_op(call_op, name, torch_op, args, out=out)


def result_dtype(tensors: list[torch.Tensor]) -> torch.dtype:
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    return dtype


@SETTINGS
@given(data=st.data())
def test_cat_matches_torch(call_op: Any, data: Any) -> None:
    tensors, dim = data.draw(tensor_lists(True))
    out = data.draw(
        out_tensors(result_dtype(tensors), result_shape(aten.cat, tensors, dim), other_dtype_p=0.4)
    )
    check_join(call_op, "aten::cat.out", aten.cat.out, (tensors, dim), out)


def test_cat_legacy_empty_inputs(call_op: Any) -> None:
    a = torch.arange(6, dtype=torch.int32).view(2, 3)
    empty = torch.empty(0, dtype=torch.float64)
    out = call_op("aten::cat.out", [empty, a, empty, a], 1, out=torch.empty(0, dtype=torch.float64))
    torch.testing.assert_close(out, torch.cat([empty, a, empty, a], 1), rtol=0, atol=0)
    out = call_op("aten::cat.out", [empty, empty], 5, out=torch.empty(3))
    assert out.shape == (0,)


@pytest.mark.parametrize(
    ("tensors", "dim", "match"),
    [
        ([], 0, "non-empty list"),
        ([torch.tensor(1.0)], 0, "zero-dimensional tensor"),
        ([torch.ones(2, 3), torch.ones(2, 3, 1)], 0, "same number of dimensions"),
        ([torch.ones(2, 3), torch.ones(2, 4)], 0, "Sizes of tensors must match"),
        ([torch.ones(2, 3)], 2, "out of range"),
    ],
)
def test_cat_errors(call_op: Any, tensors: list, dim: int, match: str) -> None:
    with pytest.raises(kiln.KilnError, match=match):
        call_op("aten::cat.out", tensors, dim, out=torch.empty(0))


def test_cat_out_dtype_must_be_castable(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="can't be cast"):
        call_op("aten::cat.out", [torch.ones(2)], 0, out=torch.empty(0, dtype=torch.int64))


@SETTINGS
@given(data=st.data())
def test_stack_matches_torch(call_op: Any, data: Any) -> None:
    tensors, dim = data.draw(tensor_lists(False))
    out = data.draw(
        out_tensors(
            result_dtype(tensors), result_shape(aten.stack, tensors, dim), other_dtype_p=0.4
        )
    )
    check_join(call_op, "aten::stack.out", aten.stack.out, (tensors, dim), out)


def test_stack_errors(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="non-empty TensorList"):
        call_op("aten::stack.out", [], 0, out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match="equal size"):
        call_op("aten::stack.out", [torch.ones(2), torch.ones(3)], 0, out=torch.empty(0))
