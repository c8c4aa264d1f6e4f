"""Inputs the bindings' fuzz harness found crashing or misbehaving, replayed under the sanitized
kiln._C (test_python_fuzz.py runs this file with libasan preloaded): each must now give the
stated result, and no sanitizer may report.

    python tests/fuzz/python/regressions.py MODULE_DIR CORPUS_DIR
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sanitized  # noqa: E402


def _expect(
    error: type[BaseException], words: str, call: Callable[..., object], *args: Any, **kwargs: Any
) -> None:
    try:
        call(*args, **kwargs)
    except error as raised:
        assert words in str(raised), f"{type(raised).__name__}: {raised}"
        return
    raise AssertionError(f"no {error.__name__} ({words})")


def main(module_dir: Path, corpus: Path) -> None:
    sanitized.install(module_dir)
    import torch

    import kiln

    # Sizes whose product (a 0 counted as 1) passes int64, from expand: their dense strides
    # overflowed in dim_order_to_strides (UBSan: signed integer overflow). Fast and full path.
    # The fast path declines the tensor and the full path refuses it.
    empty_huge = torch.ones(1, 1, 1).expand(0, 3, 2**62)
    refused = "whose strides would pass int64"
    _expect(ValueError, refused, kiln.call_op, "aten::relu.out", empty_huge, out=torch.empty(0))
    _expect(
        ValueError,
        refused,
        kiln.call_op,
        "aten::add.out",
        empty_huge,
        empty_huge,
        out=torch.empty(0),
    )

    # full_like into an empty out: fill_elements gave memset the null data of an empty tensor.
    for dtype in (torch.uint8, torch.bool, torch.float32):
        out = torch.empty(0, dtype=dtype)
        assert kiln.call_op("aten::full_like.out", torch.empty(0, dtype=dtype), 1, out=out) is out

    # 16-byte elements (complex128) moved as 8-byte ones by the copy kernels' width dispatch:
    # half of every element was lost (wrong results, found by comparing with torch).
    parts = torch.arange(105, dtype=torch.float64).view(7, 3, 5)
    values = torch.complex(parts, -parts)
    for dim in range(3):
        out = torch.empty(0, dtype=torch.complex128)
        kiln.call_op("aten::select_copy.int_out", values, dim, -1, out=out)
        assert torch.equal(out, values.select(dim, -1)), f"select_copy dim {dim}"
    out = torch.empty(0, dtype=torch.complex128)
    kiln.call_op("aten::permute_copy.out", values, [2, 0, 1], out=out)
    assert torch.equal(out, values.permute(2, 0, 1)), "permute_copy"

    # A scalar that pybind11 cannot convert, for a program input: pybind11's RuntimeError, now
    # KilnError (a complex for a tensor input; an int past int64).
    program = kiln.load(corpus / "mlp.kiln.pte")
    for value in (1 + 2j, 2**64, "x"):
        _expect(kiln.KilnError, "input 0", program.run, value)
    print("regressions: ok")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
