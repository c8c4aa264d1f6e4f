"""aten::clone.out, alias_copy.out, detach_copy.out, lift_fresh_copy.out and _conj_physical.out
(a copy for real dtypes) against torch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from op_compare import check_op
from strategies import out_tensors, shapes, tensors

import kiln

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

aten = torch.ops.aten
memory_formats = st.sampled_from(
    [
        None,
        torch.preserve_format,
        torch.contiguous_format,
        torch.channels_last,
        torch.channels_last_3d,
    ]
)


@SETTINGS
@given(data=st.data())
def test_clone_matches_torch(call_op: Any, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 5, 0, 3)))
    memory_format = data.draw(memory_formats)
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(
        call_op, "aten::clone.out", aten.clone.out, (a,), {"memory_format": memory_format}, out=out
    )


def test_clone_channels_last_rank(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="required rank 4 tensor to use channels_last"):
        call_op(
            "aten::clone.out",
            torch.ones(2, 3),
            memory_format=torch.channels_last,
            out=torch.empty(0),
        )
    with pytest.raises(kiln.KilnError, match="required rank 5 tensor to use channels_last_3d"):
        call_op(
            "aten::clone.out",
            torch.ones(1, 2, 3, 4),
            memory_format=torch.channels_last_3d,
            out=torch.empty(0),
        )


def test_clone_out_dtype_must_match(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="(?i)Expected out tensor to have dtype float"):
        call_op("aten::clone.out", torch.ones(2), out=torch.empty(0, dtype=torch.int64))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    op=st.sampled_from(
        [
            ("aten::alias_copy.out", aten.alias_copy.out),
            ("aten::detach_copy.out", aten.detach_copy.out),
        ]
    ),
)
def test_alias_detach_copy_match_torch(call_op: Any, data: Any, op: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 5, 0, 3)))
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, op[0], op[1], (a,), out=out)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize("op", ["lift_fresh_copy", "_conj_physical"])
def test_lift_fresh_and_conj_physical_copy_match_torch(call_op: Any, op: str, data: Any) -> None:
    a = data.draw(tensors(shape=shapes(0, 5, 0, 3)))
    # Exactly self's dtype, as torch's out variants want; sometimes another, which both refuse.
    out = data.draw(out_tensors(a.dtype, tuple(a.shape)))
    check_op(call_op, f"aten::{op}.out", getattr(aten, op).out, (a,), out=out)


def test_conj_physical_kiln_lacks_complex(call_op: Any) -> None:
    # Kiln's dtypes are real: a complex self is refused, not copied unconjugated.
    with pytest.raises(kiln.KilnError, match="self has dtype ComplexFloat"):
        call_op(
            "aten::_conj_physical.out",
            torch.ones(2, dtype=torch.complex64),
            out=torch.empty(0, dtype=torch.complex64),
        )
