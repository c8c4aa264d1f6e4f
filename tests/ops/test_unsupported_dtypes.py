"""Dtypes torch has but the portable kernels do not compute on fail with a clear KilnError."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import kiln

LACKING = [torch.complex64, torch.complex128, torch.uint16, torch.uint32]


def calls(t: torch.Tensor) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    return [
        ("aten::add.out", (t, t), {}),
        ("aten::sub.out", (t, t), {}),
        ("aten::add.Scalar_out", (t, 1), {}),
        ("aten::mul.out", (t, t), {}),
        ("aten::mul.Scalar_out", (t, 2), {}),
        ("aten::div.out", (t, t), {}),
        ("aten::relu.out", (t,), {}),
        ("aten::mm.out", (t.reshape(2, 2), t.reshape(2, 2)), {}),
        ("aten::_softmax.out", (t, 0, False), {}),
        ("aten::sum.IntList_out", (t, [0], False), {}),
    ]


@pytest.mark.parametrize("dtype", LACKING)
def test_compute_ops_reject_dtypes_kiln_lacks(call_op: Any, dtype: torch.dtype) -> None:
    t = torch.ones(4, dtype=dtype)
    for name, args, kwargs in calls(t):
        with pytest.raises(kiln.KilnError, match=f"dtype {_kiln_name(dtype)}"):
            call_op(name, *args, out=torch.empty(0, dtype=dtype), **kwargs)


def test_sum_rejects_a_sum_dtype_kiln_lacks(call_op: Any) -> None:
    with pytest.raises(kiln.KilnError, match="op dtype has dtype UInt16"):
        call_op(
            "aten::sum.IntList_out",
            torch.ones(3),
            [0],
            False,
            dtype=torch.uint16,
            out=torch.empty(0),
        )


def test_copy_ops_take_any_dtype(call_op: Any) -> None:
    # clone and view_copy move bytes, so every dtype works, as in torch.
    for dtype in LACKING:
        t = torch.arange(4).to(dtype)
        torch.testing.assert_close(
            call_op("aten::clone.out", t, out=torch.empty(0, dtype=dtype)), t
        )
        viewed = call_op("aten::view_copy.out", t, [2, 2], out=torch.empty(0, dtype=dtype))
        torch.testing.assert_close(viewed, t.view(2, 2))


def _kiln_name(dtype: torch.dtype) -> str:
    return {
        torch.complex64: "ComplexFloat",
        torch.complex128: "ComplexDouble",
        torch.uint16: "UInt16",
        torch.uint32: "UInt32",
    }[dtype]
