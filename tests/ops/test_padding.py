"""aten::reflection_pad{1,2,3}d.out and aten::replication_pad{1,2,3}d.out against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op, raises
from strategies import ALL_DTYPES, make_tensor, out_tensors

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
OPS = [(mode, n) for mode in ("reflection", "replication") for n in (1, 2, 3)]


def op_of(mode: str, n: int) -> tuple[str, Any]:
    name = f"{mode}_pad{n}d"
    return f"aten::{name}.out", getattr(aten, name).out


@pytest.mark.parametrize(("mode", "n"), OPS)
@SETTINGS
@given(data=st.data())
def test_padding_matches_torch(call_op: Any, mode: str, n: int, data: Any) -> None:
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    batched = data.draw(st.booleans())
    lead = [data.draw(st.integers(0 if batched else 1, 3))] if batched else []
    shape = (*lead, *[data.draw(st.integers(1, 5)) for _ in range(n + 1)])
    x = make_tensor(dtype, shape, data.draw(st.integers(0, 2**31 - 1)))
    # Pads up to the size (reflection refuses a pad as large as the size) and crops.
    padding = []
    for side in range(n):
        size = shape[-1 - side]
        padding += [data.draw(st.integers(-size, size)) for _ in range(2)]
    if any(padding[2 * i] + padding[2 * i + 1] < -shape[-1 - i] for i in range(n)):
        # A negative output size; torch resizes out to it when the batch is empty, and
        # test_padding_refusals checks the refusal.
        padding = [max(p, 0) for p in padding]
    out_shape = list(shape)
    for i in range(n):
        out_shape[-1 - i] += padding[2 * i] + padding[2 * i + 1]
    out = data.draw(out_tensors(dtype, tuple(out_shape), other_dtype_p=0.1))
    name, op = op_of(mode, n)
    check_op(call_op, name, op, (x, padding), out=out)


@pytest.mark.parametrize(("mode", "n"), OPS)
def test_padding_large(call_op: Any, mode: str, n: int) -> None:
    shape = {1: (8, 16, 300), 2: (2, 8, 40, 50), 3: (2, 3, 10, 12, 14)}[n]
    x = make_tensor(torch.float32, shape, 3)
    name, op = op_of(mode, n)
    check_op(call_op, name, op, (x, [3, 2] * n), out=torch.empty(0))


@pytest.mark.parametrize(("mode", "n"), OPS)
@pytest.mark.parametrize(
    ("shape_of", "padding_of"),
    [
        (lambda n: (5,) * n, lambda n: [1, 1] * n),  # no channel dim
        (lambda n: (2,) * (n + 3), lambda n: [1, 1] * n),  # too many dims
        (lambda n: (2, 0) + (3,) * n, lambda n: [1, 1] * n),  # empty channel dim
        (lambda n: (2, 3) + (3,) * n, lambda n: [1, 1] * n + [1]),  # odd padding length
        (lambda n: (2, 3) + (3,) * n, lambda n: [3, 0] * n),  # reflection: pad == size
        (lambda n: (2, 3) + (3,) * n, lambda n: [-2, -2] * n),  # negative output size
        (lambda n: (2, 3) + (3,) * n, lambda n: [-3, 0] * n),  # every output dim empty
    ],
)
def test_padding_refusals(call_op: Any, mode: str, n: int, shape_of: Any, padding_of: Any) -> None:
    name, op = op_of(mode, n)
    x = make_tensor(torch.float32, shape_of(n), 1)
    check_op(call_op, name, op, (x, padding_of(n)), out=torch.empty(0))


@pytest.mark.parametrize(("mode", "n"), OPS)
def test_padding_refuses_bool_and_other_out_dtype(call_op: Any, mode: str, n: int) -> None:
    name, op = op_of(mode, n)
    x = torch.ones((2,) * (n + 1), dtype=torch.bool)
    check_op(call_op, name, op, (x, [1, 1] * n), out=torch.empty(0, dtype=torch.bool))
    with raises(call_op, "not implemented for 'Bool'"):
        call_op(name, x, [1, 1] * n, out=torch.empty(0, dtype=torch.bool))
    with raises(call_op, "Expected out tensor to have dtype"):
        call_op(name, x.float(), [1, 1] * n, out=torch.empty(0, dtype=torch.float64))
