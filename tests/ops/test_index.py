"""aten::index.Tensor_out, aten::index_put.out and aten::index_put_ (advanced indexing, in place for
index_put_) against torch."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import assert_same, check_op, is_portable
from strategies import dtypes, make_tensor, out_tensors, seeds, shapes, tensors

import kiln

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten


def portable_only(call_op: Any, match: str) -> str | None:
    """Kiln's own messages are checked on the portable backend; ATen mode has libtorch's."""
    return match if is_portable(call_op) else None


@st.composite
def index_lists(draw: Any, a: torch.Tensor, *, byte_masks: bool) -> list[torch.Tensor | None]:
    """An indices list for `a`: None, integer tensors (int64/int32, negative values, shapes that
    usually broadcast together) and bool masks over one or more dims; sometimes invalid."""
    base = draw(shapes(0, 2, 0, 3))
    items: list[torch.Tensor | None] = []
    dim = 0
    while dim < a.dim() and (not items or draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["none", "int", "int", "mask"]))
        size = a.shape[dim]
        if kind == "none":
            items.append(None)
            dim += 1
        elif kind == "int":
            shape = list(base[draw(st.integers(0, len(base))) :])
            shape = [1 if draw(st.integers(0, 3)) == 0 else s for s in shape]
            low, high = -size, size - 1
            if draw(st.integers(0, 14)) == 0:
                low, high = -size - 2, size + 1
            if high < low:
                high = low
            index = make_tensor(torch.int64, tuple(shape), draw(seeds), int_range=(low, high))
            items.append(index.to(draw(st.sampled_from([torch.int64, torch.int32]))))
            dim += 1
        else:
            covers = draw(st.integers(1, a.dim() - dim))
            mask = make_tensor(torch.bool, tuple(a.shape[dim : dim + covers]), draw(seeds))
            if byte_masks and draw(st.integers(0, 4)) == 0:
                mask = mask.to(torch.uint8)
            items.append(mask)
            dim += covers
    if draw(st.integers(0, 14)) == 0:
        items.append(torch.tensor(draw(st.booleans())))
    return items


def torch_index(a: torch.Tensor, indices: list[torch.Tensor | None]) -> torch.Tensor | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return aten.index.Tensor(a, indices)
        except (RuntimeError, IndexError):
            return None


@SETTINGS
@given(data=st.data())
def test_index_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(dtypes, shapes(1, 4)))
    indices = data.draw(index_lists(a, byte_masks=True))
    out = data.draw(out_tensors(a.dtype, (0,)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_op(call_op, "aten::index.Tensor_out", aten.index.Tensor_out, (a, indices), out=out)


@SETTINGS
@given(data=st.data())
def test_index_put_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(dtypes, shapes(1, 4)))
    indices = data.draw(index_lists(a, byte_masks=False))
    accumulate = data.draw(st.booleans())
    result = torch_index(a, indices)
    shape = tuple(result.shape) if result is not None else (2,)
    kind = data.draw(st.sampled_from(["full", "suffix", "ones", "scalar"]))
    if kind == "suffix":
        shape = shape[data.draw(st.integers(0, len(shape))) :]
    elif kind == "ones":
        shape = tuple(1 if data.draw(st.booleans()) else s for s in shape)
    elif kind == "scalar":
        shape = ()
    dtype = a.dtype if data.draw(st.integers(0, 9)) else data.draw(dtypes)
    values = data.draw(tensors(dtype, shape))
    if accumulate and dtype.is_floating_point:
        values = values.nan_to_num(0.0, 0.0, 0.0)  # inf + -inf order would matter
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    atol = 0.0
    if accumulate and dtype.is_floating_point and result is not None:
        atol = 4 * torch.finfo(dtype).eps * (float(values.double().abs().sum()) + 1.0)
    check_op(
        call_op,
        "aten::index_put.out",
        aten.index_put.out,
        (a, indices, values, accumulate),
        out=out,
        atol=atol,
    )


@SETTINGS
@given(data=st.data())
def test_index_put_in_place_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(dtypes, shapes(1, 4)))
    indices = data.draw(index_lists(a, byte_masks=False))
    accumulate = data.draw(st.booleans())
    result = torch_index(a, indices)
    shape = tuple(result.shape) if result is not None else (2,)
    if data.draw(st.booleans()):
        shape = shape[data.draw(st.integers(0, len(shape))) :]
    dtype = a.dtype if data.draw(st.integers(0, 9)) else data.draw(dtypes)
    values = data.draw(tensors(dtype, shape))
    if accumulate and dtype.is_floating_point:
        values = values.nan_to_num(0.0, 0.0, 0.0)  # inf + -inf order would matter
    atol = 0.0
    if accumulate and dtype.is_floating_point and result is not None:
        atol = 4 * torch.finfo(dtype).eps * (float(values.double().abs().sum()) + 1.0)
    before = a.clone()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = aten.index_put_(a.clone(), indices, values, accumulate)
    except (RuntimeError, IndexError):
        with pytest.raises(kiln.KilnError):
            call_op("aten::index_put_", a, indices, values, accumulate)
        torch.testing.assert_close(a, before, rtol=0, atol=0, equal_nan=True)
        return
    assert call_op("aten::index_put_", a, indices, values, accumulate) is a
    assert_same(a, expected, atol=atol)


def test_index_put_in_place_refuses_overlapping_inputs(call_op: Any) -> None:
    a = torch.zeros(3, 4)
    with pytest.raises(RuntimeError, match="single memory location"):
        aten.index_put_(a, [torch.tensor([0, 2])], a[1])
    with pytest.raises(kiln.KilnError, match=portable_only(call_op, "single memory location")):
        call_op("aten::index_put_", a, [torch.tensor([0, 2])], a[1])
    flat = torch.zeros(4, dtype=torch.int64)
    with pytest.raises(kiln.KilnError, match=portable_only(call_op, "single memory location")):
        call_op("aten::index_put_", flat, [flat], torch.tensor(1))


def test_index_adjacent_and_separated_indices(call_op: Any) -> None:
    a = torch.arange(120.0).reshape(2, 3, 4, 5)
    i = torch.tensor([[0], [1]])
    j = torch.tensor([1, 2, 3])
    for indices in ([None, i, j], [i, None, j], [None, None, None, j], [None, None, a[0, 0] > 7]):
        expected = a[tuple(slice(None) if x is None else x for x in indices)]
        out = call_op("aten::index.Tensor_out", a, indices, out=torch.empty(0))
        assert torch.equal(out, expected)


def test_index_put_accumulates_duplicates(call_op: Any) -> None:
    a = torch.zeros(3, 2, dtype=torch.int8)
    index = torch.tensor([0, 0, 2, 0])
    values = torch.tensor([100, 100, 1, 100], dtype=torch.int8)
    out = torch.empty(0, dtype=torch.int8)
    out = call_op("aten::index_put.out", a, [index], values.unsqueeze(1), True, out=out)
    expected = aten.index_put(a, [index], values.unsqueeze(1), True)
    assert torch.equal(out, expected)


@pytest.mark.parametrize(
    ("shape", "indices", "match"),
    [
        ((2, 3), [None, torch.tensor([3])], "index 3 is out of bounds"),
        ((2, 3), [torch.tensor([-3])], "index -3 is out of bounds"),
        ((2, 3), [torch.tensor([0], dtype=torch.int16)], "long, int, byte or bool"),
        ((2, 3), [torch.tensor([0.0])], "long, int, byte or bool"),
        ((2, 3), [None, None, torch.tensor([0])], "too many indices"),
        ((2, 3), [], "at least one index"),
        ((2, 3), [torch.tensor([True, False, True])], "shape of the mask"),
        ((2, 3), [torch.tensor([0, 1]), torch.tensor([0, 1, 2])], "could not be broadcast"),
        ((), [torch.tensor(True)], "too many indices"),
    ],
)
def test_index_errors(call_op: Any, shape: tuple, indices: list, match: str) -> None:
    a = torch.ones(shape)
    with pytest.raises((RuntimeError, IndexError)):
        aten.index.Tensor_out(a, indices, out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match=portable_only(call_op, match)):
        call_op("aten::index.Tensor_out", a, indices, out=torch.empty(0))


@pytest.mark.parametrize(
    ("indices", "values", "match"),
    [
        ([torch.tensor([5])], torch.tensor(1.0), "index 5 is out of bounds"),
        ([torch.tensor([0])], torch.ones(2, 3), "cannot be broadcast"),
        ([torch.tensor([0])], torch.ones(1, 1, 3), "cannot be broadcast"),
        ([torch.tensor([0])], torch.ones(3, dtype=torch.int64), "dtypes match"),
        ([None], torch.tensor(1.0), "no index tensor"),
        ([torch.tensor([1, 0], dtype=torch.uint8)], torch.tensor(1.0), "boolean masks"),
    ],
)
def test_index_put_errors(call_op: Any, indices: list, values: torch.Tensor, match: str) -> None:
    a = torch.zeros(2, 3)
    with pytest.raises((RuntimeError, IndexError)):
        aten.index_put.out(a, indices, values, False, out=torch.empty(0))
    with pytest.raises(kiln.KilnError, match=portable_only(call_op, match)):
        call_op("aten::index_put.out", a, indices, values, False, out=torch.empty(0))


def test_index_put_one_value_mask_converts_like_masked_fill(call_op: Any) -> None:
    # ATen routes a one-value put with a single mask through masked_fill_, converting the value.
    self = torch.zeros(2, 3, dtype=torch.int16)
    indices = [None, torch.tensor([True, False, True])]
    values = torch.tensor(172, dtype=torch.uint8)
    expected = torch.ops.aten.index_put(self, indices, values)
    out = call_op(
        "aten::index_put.out", self, indices, values, out=torch.empty(0, dtype=torch.int16)
    )
    assert torch.equal(out, expected)


@pytest.mark.parametrize(
    ("dtype", "value"),
    [
        (torch.uint8, torch.tensor(-30036, dtype=torch.int16)),
        (torch.uint8, torch.tensor([300.5])),
        (torch.int8, torch.tensor(True)),
        (torch.int32, torch.tensor(3.0, dtype=torch.float64)),
        (torch.float16, torch.tensor(1e6)),
    ],
)
def test_index_put_one_value_mask_checks_the_conversion(
    call_op: Any, dtype: torch.dtype, value: torch.Tensor
) -> None:
    # On the masked_fill_ route a value that does not fit self's dtype is refused, as in ATen.
    self = torch.zeros(3, dtype=dtype)
    indices = [torch.tensor([True, False, True])]
    check_op(
        call_op,
        "aten::index_put.out",
        aten.index_put.out,
        (self, indices, value, False),
        out=torch.empty(0, dtype=dtype),
    )
