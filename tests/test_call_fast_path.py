"""kiln.call_op's fast path (kiln._C.BoundOperator): the same results and errors as the full
Python path (bind_call + call_boxed), which it hands every value it does not take."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import kiln
from buildtools import REPO_ROOT, load_script
from kiln import _call


def _bound(name: str, backend: str | None = None) -> Any:
    bound = _call._bind_operator(name, backend)
    assert bound is not None
    return bound


def _outcome(run: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", run()
    except Exception as error:  # noqa: BLE001 - the outcome compared is the error itself
        return type(error).__name__, str(error)


def test_call_op_binds_each_operator_once() -> None:
    a, out = torch.ones(3), torch.empty(3)
    kiln.call_op("aten::relu.out", a, out=out)
    bound = _call._BOUND[("aten::relu.out", None)]
    kiln.call_op("aten::relu.out", a, out=out)
    assert _call._BOUND[("aten::relu.out", None)] is bound
    assert bound.name == "aten::relu.out"


def test_fast_path_returns_the_out_it_wrote() -> None:
    a, b, out = torch.tensor([1.0]), torch.tensor([2.0]), torch.empty(1)
    result = _bound("aten::add.out")((a, b), out, {"alpha": 3}, True)
    assert result is out and out.item() == 7.0


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.arange(24.0).reshape(2, 3, 4),
        lambda: torch.arange(24.0).reshape(2, 3, 4)[:, 1:2, :],  # size-1 dim, any stride
        lambda: torch.arange(24.0).reshape(4, 6)[:, :3],  # a slice: not dense
        lambda: torch.arange(24.0).reshape(4, 6).t(),
        lambda: torch.arange(3.0).reshape(3, 1).expand(3, 4),  # stride 0
        lambda: torch.empty(0, 5).t(),  # empty: contiguous whatever its strides
        lambda: torch.arange(1.0, 2.0).as_strided((1, 1), (7, 9)),
        lambda: torch.arange(120.0).reshape(2, 3, 4, 5).to(memory_format=torch.channels_last),
        lambda: torch.arange(120.0).reshape(1, 3, 4, 10).to(memory_format=torch.channels_last),
        lambda: torch.arange(240.0).reshape(2, 3, 2, 4, 5).to(memory_format=torch.channels_last_3d),
        lambda: torch.arange(120.0).reshape(2, 3, 4, 5).permute(0, 3, 1, 2),
        lambda: torch.ones(1, 1, 1, 1),
    ],
)
def test_layouts_match_the_full_path(make: Callable[[], torch.Tensor]) -> None:
    fast_out, full_out = torch.empty(0), torch.empty(0)
    fast = _outcome(lambda: _fast_or_full("aten::neg.out", (make(),), fast_out))
    full = _outcome(lambda: _call._call_full("aten::neg.out", (make(),), full_out, None, True, {}))
    assert fast[0] == full[0], (fast, full)
    if fast[0] == "ok":
        assert torch.equal(fast_out, full_out)
        assert fast_out.stride() == full_out.stride()
    else:
        assert fast[1] == full[1]


def _fast_or_full(name: str, args: tuple[Any, ...], out: Any) -> Any:
    result = _bound(name)(args, out, {}, True)
    if result is NotImplemented:
        return _call._call_full(name, args, out, None, True, {})
    return result


@pytest.mark.parametrize(
    "value",
    [np.int64(2), np.float32(0.5), torch.tensor(2), torch.tensor(1.5), True, 2**70],
)
def test_values_the_fast_path_leaves_still_work(value: Any) -> None:
    a, b = torch.ones(3), torch.ones(3)
    fast_out, full_out = torch.empty(3), torch.empty(3)
    fast = _outcome(lambda: kiln.call_op("aten::add.out", a, b, alpha=value, out=fast_out))
    full = _outcome(
        lambda: _call._call_full("aten::add.out", (a, b), full_out, None, True, {"alpha": value})
    )
    assert fast[0] == full[0] and (fast[0] != "ok" or torch.equal(fast_out, full_out))
    if fast[0] != "ok":
        assert fast[1] == full[1]


def test_every_argument_kind_through_the_fast_path() -> None:
    x = torch.arange(12.0).reshape(3, 4)
    # int list, bool, optional dtype (keyword)
    out = torch.empty(0, dtype=torch.float64)
    assert kiln.call_op("aten::sum.IntList_out", x, [1], True, dtype=torch.float64, out=out) is out
    assert torch.equal(out, x.sum(1, keepdim=True, dtype=torch.float64))
    # tensor list + int
    cat = kiln.call_op("aten::cat.out", (x, x), 1, out=torch.empty(0))
    assert torch.equal(cat, torch.cat((x, x), 1))
    # optional tensor list (None entries)
    index = kiln.call_op(
        "aten::index.Tensor_out", x, [None, torch.tensor([0, 2])], out=torch.empty(0)
    )
    assert torch.equal(index, x[:, [0, 2]])
    # string
    gelu = kiln.call_op("aten::gelu.out", x, approximate="tanh", out=torch.empty(0))
    torch.testing.assert_close(gelu, torch.nn.functional.gelu(x, approximate="tanh"))
    # several outs, by out= tuple
    values, indices = torch.empty(0), torch.empty(0, dtype=torch.int64)
    result = kiln.call_op("aten::max.dim_max", x, 1, out=(values, indices))
    assert result == (values, indices) and torch.equal(indices, x.max(1).indices)


def test_in_place_and_functional_operators() -> None:
    target, source = torch.zeros(3), torch.arange(3.0)
    assert kiln.call_op("aten::copy_", target, source) is target
    assert torch.equal(target, source)
    assert bool(kiln.call_op("aten::allclose.Tensor", source, target.clone()))


def test_threads_share_a_bound_operator() -> None:
    # Tensors large enough for the kernel to run without the GIL: another thread's call then
    # finds the operator's frame in use and takes one of its own.
    a = torch.rand(1 << 16)
    results: list[bool] = []

    def work(scale: float) -> None:
        for _ in range(50):
            out = torch.empty(0)
            kiln.call_op("aten::mul.Scalar_out", a, scale, out=out)
            results.append(torch.equal(out, a * scale))

    threads = [threading.Thread(target=work, args=(float(i + 1),)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 200 and all(results)


def test_a_kernel_failure_raises_from_the_fast_path() -> None:
    bound = _bound("aten::add.out")
    with pytest.raises(kiln.KilnError, match=r"aten::add\.out: .*broadcast") as info:
        bound((torch.ones(2, 3), torch.ones(4)), torch.empty(0), {}, True)
    assert info.value.code == "InvalidArgument"


def test_the_call_benchmark_gives_its_rows() -> None:
    bench = load_script(REPO_ROOT / "bench/python_call.py", "python_call_bench")
    rows = bench.rows(calls=5, rounds=1)
    assert [label for label, _, _ in rows][0] == "add.out, 1 element"
    assert all(kiln_us > 0 and torch_us > 0 for _, kiln_us, torch_us in rows)
