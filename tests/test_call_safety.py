"""kiln.call_op never reads memory torch freed and never views a tensor it cannot: an out that is
also an input, or overlaps one, gets torch's outcome (the same result, or a refusal where torch
refuses), and meta, sparse, quantized and non-CPU tensors are refused with kiln.KilnError.

Each aliasing case runs in a subprocess, since the failure it guards against is a crash."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import kiln

_RUNNER = textwrap.dedent(
    """
    import json, sys, warnings
    import torch, kiln
    warnings.simplefilter("ignore")
    setup, torch_call, kiln_call, n = sys.argv[1:5]

    def outcome(call, backend):
        scope = {"torch": torch, "kiln": kiln, "N": int(n), "BACKEND": backend}
        exec(setup, scope)
        try:
            return "ok", eval(call, scope)
        except Exception as error:
            return type(error).__name__, str(error)

    expected = outcome(torch_call, None)
    report = {"torch": expected[0]}
    for backend in ("portable", None):
        got = outcome(kiln_call, backend)
        report[str(backend)] = got[0]
        if got[0] == "ok" and expected[0] == "ok":
            report[str(backend) + " equal"] = bool(torch.equal(got[1], expected[1]))
        elif got[0] != "ok":
            report[str(backend) + " message"] = got[1]
    print(json.dumps(report))
    """
)


def _run(setup: str, torch_call: str, kiln_call: str, n: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER, setup, torch_call, kiln_call, str(n)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"crashed ({done.returncode}): {done.stderr[-2000:]}"
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


# (setup, torch's call, kiln's call): the repros and their neighbours. BACKEND is None
# (call_op's fast path) or "portable".
_SAME_AS_TORCH = {
    "add_out_is_input_grows": (
        "a = torch.ones(N)",
        "torch.add(a, torch.ones(2, N), out=a)",
        "kiln.call_op('aten::add.out', a, torch.ones(2, N), out=a, backend=BACKEND)",
    ),
    "mul_out_is_input_grows": (
        "a = torch.ones(N)",
        "torch.mul(a, torch.ones(2, N), out=a)",
        "kiln.call_op('aten::mul.out', a, torch.ones(2, N), out=a, backend=BACKEND)",
    ),
    "where_out_is_input_grows": (
        "a = torch.ones(N); c = torch.ones(2, N, dtype=torch.bool)",
        "torch.where(c, a, a, out=a)",
        "kiln.call_op('aten::where.self_out', c, a, a, out=a, backend=BACKEND)",
    ),
    "cat_out_is_input_grows": (
        "a = torch.ones(N)",
        "torch.cat([a, a], out=a)",
        "kiln.call_op('aten::cat.out', [a, a], out=a, backend=BACKEND)",
    ),
    "cat_out_partly_overlaps_inputs": (
        "a = torch.arange(2 * N, dtype=torch.float32)",
        "torch.cat([a[:N], a[N:]], out=a)",
        "kiln.call_op('aten::cat.out', [a[:N], a[N:]], out=a, backend=BACKEND)",
    ),
    "add_offset_out_partly_overlaps_input": (
        "b = torch.arange(2 * N, dtype=torch.float32)",
        "torch.add(b[: N], b[: N], out=b[N // 2 : N // 2 + N])",
        "kiln.call_op('aten::add.out', b[: N], b[: N], out=b[N // 2 : N // 2 + N], "
        "backend=BACKEND)",
    ),
    "add_out_is_input_same_shape": (
        "a = torch.arange(N, dtype=torch.float32)",
        "torch.add(a, a, out=a)",
        "kiln.call_op('aten::add.out', a, a, out=a, backend=BACKEND)",
    ),
    "where_out_is_input_same_shape": (
        "a = torch.arange(N, dtype=torch.float32)",
        "torch.where(a > 3, a, -a, out=a)",
        "kiln.call_op('aten::where.self_out', a > 3, a, -a, out=a, backend=BACKEND)",
    ),
    "add_offset_out_grows_beside_input": (
        "b = torch.arange(2 * N, dtype=torch.float32)",
        "torch.add(b[:N], torch.ones(2, N), out=b[N:])",
        "kiln.call_op('aten::add.out', b[:N], torch.ones(2, N), out=b[N:], backend=BACKEND)",
    ),
    "add_offset_out_grows": (
        "b = torch.zeros(2 * N)",
        "torch.add(torch.ones(2, N), torch.ones(N), out=b[N:])",
        "kiln.call_op('aten::add.out', torch.ones(2, N), torch.ones(N), out=b[N:], "
        "backend=BACKEND)",
    ),
    "add_offset_out": (
        "b = torch.zeros(2 * N)",
        "torch.add(torch.ones(N), torch.arange(N, dtype=torch.float32), out=b[N:])",
        "kiln.call_op('aten::add.out', torch.ones(N), torch.arange(N, dtype=torch.float32), "
        "out=b[N:], backend=BACKEND)",
    ),
}


@pytest.mark.parametrize("n", [16, 1 << 20])
@pytest.mark.parametrize("case", sorted(_SAME_AS_TORCH))
def test_aliasing_outs_get_torchs_outcome(case: str, n: int) -> None:
    report = _run(*_SAME_AS_TORCH[case], n)
    for backend in ("portable", "None"):
        if report["torch"] == "ok":
            assert report[backend] == "ok", report
            assert report[backend + " equal"], report
        else:
            assert report[backend] == "KilnError", report


def test_out_that_is_an_input_of_mm_and_grows_is_refused() -> None:
    # torch resizes such an out under the input it is still reading (it returns zeros here);
    # kiln refuses, as torch does for its elementwise ops.
    report = _run(
        "m = torch.ones(4, 4)",
        "torch.mm(torch.ones(8, 4), m, out=m)",
        "kiln.call_op('aten::mm.out', torch.ones(8, 4), m, out=m, backend=BACKEND)",
        0,
    )
    assert report["portable"] == report["None"] == "KilnError", report
    assert "also an input" in report["None message"], report


@pytest.mark.parametrize(
    ("setup", "call", "factor"),
    [
        ("m = torch.arange(16.0).reshape(4, 4)", "'aten::mm.out', m, m, out=m", "self"),
        ("m = torch.arange(16.0).reshape(4, 4)", "'aten::mm.out', torch.eye(4), m, out=m", "mat2"),
        (
            "m = torch.arange(16.0).reshape(4, 4)",
            "'aten::addmm.out', torch.ones(4, 4), m, torch.eye(4), out=m",
            "mat1",
        ),
        ("m = torch.ones(2, 3, 3)", "'aten::bmm.out', m, m, out=m", "batch1"),
    ],
)
def test_an_out_that_is_a_factor_of_a_product_is_refused(
    setup: str, call: str, factor: str
) -> None:
    # torch writes such a product over the factors it is still reading: its result depends on
    # the CPU (zeros on some, the product on others). Kiln refuses it.
    report = _run(setup, "None", f"kiln.call_op({call}, backend=BACKEND)", 0)
    assert report["portable"] == report["None"] == "KilnError", report
    assert f"out shares memory with {factor}" in report["None message"], report


def test_a_non_contiguous_out_is_written_through_a_copy() -> None:
    storage = torch.zeros(32)
    out = storage[::2]
    assert kiln.call_op("aten::add.out", torch.ones(16), torch.ones(16), out=out) is out
    assert torch.equal(storage[::2], torch.full((16,), 2.0))
    assert not storage[1::2].any()  # the elements between the out's stay as they were


def _meta() -> torch.Tensor:
    return torch.ones(4, device="meta")


def _sparse() -> torch.Tensor:
    return torch.ones(4).to_sparse()


def _quantized() -> torch.Tensor:
    with warnings.catch_warnings():  # torch deprecates quantized tensors; users still pass them
        warnings.simplefilter("ignore")
        return torch.quantize_per_tensor(torch.ones(4), 0.1, 0, torch.qint8)


_UNVIEWABLE: dict[str, tuple[Callable[[], torch.Tensor], str]] = {
    "meta": (_meta, "is on meta"),
    "sparse": (_sparse, "layout torch.sparse_coo"),
    "quantized": (_quantized, "is quantized"),
}


@pytest.mark.parametrize("backend", [None, "portable", "aten"])
@pytest.mark.parametrize("kind", sorted(_UNVIEWABLE))
@pytest.mark.parametrize("position", ["input", "out", "list item", "list out"])
def test_unviewable_tensors_are_refused(kind: str, position: str, backend: str | None) -> None:
    # The "aten" backend converts its arguments as the others do (kiln._convert) before it
    # loads kiln._C_aten, so the refusal needs no ATen-mode build.
    make, words = _UNVIEWABLE[kind]
    odd, plain = make(), torch.ones(4)
    with pytest.raises(kiln.KilnError, match=words) as caught:
        if position == "input":
            kiln.call_op("aten::add.out", odd, plain, out=torch.empty(4), backend=backend)
        elif position == "out":
            kiln.call_op("aten::add.out", plain, plain, out=odd, backend=backend)
        elif position == "list item":
            kiln.call_op("aten::cat.out", [plain, odd], out=torch.empty(8), backend=backend)
        else:
            kiln.call_op(
                "aten::split_copy.Tensor_out",
                plain,
                2,
                out=([torch.empty(2), odd],),
                backend=backend,
            )
    assert caught.value.code == "InvalidArgument"
