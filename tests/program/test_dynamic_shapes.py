"""Programs with dynamic shapes, written by ExecuTorch 1.5.1's exporter and by kiln.export from
modules exported with torch.export.Dim (and one with a data-dependent size): Kiln runs them at
every size within their bounds, growing and shrinking between runs, and matches eager PyTorch
and ExecuTorch's own runtime on the same file. The prim operators that compute sizes
(aten::sym_size.int, the executorch_prim:: arithmetic, et_view) run as instructions, and int
lists read the sizes they compute. An input beyond what the program planned for is a clear
error, after which the program still runs."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import torch
from executorch_export import ExecuTorchMethod, operator_tables, pte_bytes
from torch import nn
from torch.export import Dim

import kiln


class Attention(nn.Module):
    """A causal self-attention block whose sequence length varies: positions from arange(t), a
    slice of a constant mask, views with computed sizes."""

    def __init__(self, d: int = 32, heads: int = 4, max_len: int = 64) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.pos = nn.Embedding(max_len, d)
        self.norm = nn.LayerNorm(d)
        self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len, dtype=torch.bool)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        x = x + self.pos(torch.arange(t))
        q, k, v = self.qkv(self.norm(x)).split(d, -1)
        shape = (b, t, self.heads, d // self.heads)
        q, k, v = (y.view(shape).transpose(1, 2) for y in (q, k, v))
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        scores = scores.masked_fill(~self.mask[:t, :t], float("-inf")).softmax(-1)
        return self.out((scores @ v).transpose(1, 2).reshape(b, t, d)) + x


class SmallCnn(nn.Module):
    """Convolution + batch norm + relu, depthwise + relu6, global pooling and a classifier:
    what load fuses, at a varying batch or image size."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.norm = nn.BatchNorm2d(8)
        self.depthwise = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.fc = nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.norm(self.conv(x)))
        y = nn.functional.hardtanh(self.depthwise(y), 0.0, 6.0)
        return self.fc(nn.functional.adaptive_avg_pool2d(y, 1).flatten(1))


class SizeArithmetic(nn.Module):
    """Sizes computed with *, //, +, - and % (executorch_prim::mul/floordiv/add/sub/mod) feeding
    a view, arange, a slice and full."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        b, n = x.shape
        y = x.reshape(b * 2, n // 2)
        z = torch.arange(b * n // 4 + 1, dtype=torch.float32)
        return y.sum(-1), y[: b * 2 - 1], z, torch.full((n % 3 + 1,), 2.0)


class Nonzero(nn.Module):
    """A data-dependent size: nonzero's count, then used as a scalar."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        index = torch.nonzero(x > 0)
        return index.sum(0), index.shape[0] * x


@dataclass(frozen=True)
class Case:
    make: Callable[[], nn.Module]
    example: tuple[int, ...]
    dims: dict[int, Any]
    # Input shapes in run order: within bounds, growing and shrinking.
    shapes: tuple[tuple[int, ...], ...]
    prim_ops: tuple[str, ...]


_K = Dim("k", min=1, max=8)
CASES = {
    "attention_sequence": Case(
        Attention,
        (2, 10, 32),
        {1: Dim("t", min=2, max=63)},
        ((2, 10, 32), (2, 63, 32), (2, 2, 32), (2, 33, 32), (2, 7, 32)),
        ("aten::sym_size.int", "executorch_prim::mul.Scalar", "executorch_prim::et_view.default"),
    ),
    "cnn_batch": Case(
        SmallCnn,
        (2, 3, 16, 16),
        {0: Dim("b", min=1, max=8)},
        ((2, 3, 16, 16), (8, 3, 16, 16), (1, 3, 16, 16), (5, 3, 16, 16)),
        ("aten::sym_size.int", "executorch_prim::et_view.default"),
    ),
    "cnn_image_size": Case(
        SmallCnn,
        (1, 3, 16, 16),
        {2: Dim("h", min=8, max=32), 3: Dim("w", min=8, max=32)},
        ((1, 3, 16, 16), (1, 3, 32, 32), (1, 3, 8, 8), (1, 3, 9, 21)),
        (),
    ),
    "size_arithmetic": Case(
        SizeArithmetic,
        (3, 8),
        {0: Dim("b", min=1, max=6), 1: 2 * _K},
        ((3, 8), (6, 16), (1, 2), (2, 6), (5, 10)),
        (
            "executorch_prim::floordiv.Scalar",
            "executorch_prim::add.Scalar",
            "executorch_prim::sub.Scalar",
            "executorch_prim::mod.Scalar",
        ),
    ),
}


def _eval(module: nn.Module) -> nn.Module:
    torch.manual_seed(0)
    for layer in module.modules():  # batch norm statistics away from the identity
        if isinstance(layer, nn.BatchNorm2d):
            with torch.no_grad():
                layer.running_mean.uniform_(-0.5, 0.5)
                layer.running_var.uniform_(0.5, 2.0)
    return module.eval()


EXPORTERS: dict[str, Callable[[nn.Module, tuple[torch.Tensor, ...], Any], bytes]] = {
    "executorch": pte_bytes,
    "kiln": lambda module, inputs, dims: kiln.export(module, inputs, dynamic_shapes=dims),
}


@pytest.fixture(
    scope="module", params=[(c, e) for c in sorted(CASES) for e in sorted(EXPORTERS)], ids=str
)
def exported(request: pytest.FixtureRequest) -> tuple[Case, nn.Module, bytes]:
    name, exporter = request.param
    case = CASES[name]
    module = _eval(case.make())
    data = EXPORTERS[exporter](module, (torch.randn(case.example),), {"x": case.dims})
    return case, module, data


def _outputs(result: Any) -> tuple[torch.Tensor, ...]:
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def test_runs_every_size_within_bounds_like_eager_and_executorch(
    exported: tuple[Case, nn.Module, bytes],
) -> None:
    case, module, data = exported
    ops = operator_tables(data)["forward"]
    # kiln.export copies a view whose sizes vary (view_copy) where ExecuTorch's uses et_view.
    wanted = {op for op in case.prim_ops if op != "executorch_prim::et_view.default"}
    assert wanted <= set(ops), ops
    program = kiln.load(data)
    reference = ExecuTorchMethod(data)
    generator = torch.Generator().manual_seed(1)
    for shape in case.shapes:
        x = torch.randn(shape, generator=generator)
        got = program.run(x)
        want = _outputs(module(x))
        theirs = reference.run(x)
        assert len(got) == len(want) == len(theirs)
        for g, w, t in zip(got, want, theirs, strict=True):
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
            torch.testing.assert_close(g, t, rtol=1e-5, atol=1e-5)


def test_without_folding_and_fusion_too(exported: tuple[Case, nn.Module, bytes]) -> None:
    case, module, data = exported
    program = kiln.load(data, fold_constants=False, fuse=False)
    for shape in case.shapes[:3]:
        x = torch.randn(shape)
        for g, w in zip(program.run(x), _outputs(module(x)), strict=True):
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)


def test_an_input_beyond_the_plan_is_refused_and_the_program_still_runs() -> None:
    module = _eval(SmallCnn())
    data = pte_bytes(module, (torch.randn(2, 3, 16, 16),), {"x": {0: Dim("b", min=1, max=8)}})
    program = kiln.load(data)
    message = r"input 0: \[9, 3, 16, 16\] holds 6912 elements, more than the 6144 .*dimension 0"
    with pytest.raises(kiln.KilnError, match=message):
        program.run(torch.randn(9, 3, 16, 16))
    with pytest.raises(kiln.KilnError, match="expected 4 dimensions, got 3"):
        program.run(torch.randn(3, 16, 16))
    x = torch.randn(3, 3, 16, 16)
    torch.testing.assert_close(program.run(x)[0], module(x), rtol=1e-5, atol=1e-5)


def test_a_static_program_names_its_shape() -> None:
    module = _eval(SmallCnn())
    program = kiln.load(pte_bytes(module, (torch.randn(2, 3, 16, 16),)))
    with pytest.raises(kiln.KilnError, match=r"expected \[2, 3, 16, 16\], got \[1, 3, 16, 16\]"):
        program.run(torch.randn(1, 3, 16, 16))


def test_a_data_dependent_size_runs() -> None:
    # ExecuTorch plans nonzero's out with the bound of the input's element count, column-major
    # (dim order [1, 0], torch's strides for it). Kiln writes the coordinates by those strides;
    # ExecuTorch 1.5.1's runtime writes them row-major there, so its index sums differ from
    # eager's: only the count (the second output) is compared with it.
    module = Nonzero()
    data = pte_bytes(module, (torch.randn(4, 5),))
    program = kiln.load(data)
    reference = ExecuTorchMethod(data)
    generator = torch.Generator().manual_seed(2)
    for _ in range(4):
        x = torch.randn(4, 5, generator=generator)
        got, want, theirs = program.run(x), module(x), reference.run(x)
        for g, w in zip(got, want, strict=True):
            assert torch.equal(g, w)
        assert torch.equal(got[1], theirs[1])
