"""Fusion at load on programs ExecuTorch's exporter and kiln.export write: a batch norm after a
convolution folds into its weights (within batch norm's tolerance of the unfused run), and an
activation (relu, hardtanh/relu6, clamp) that alone reads a call's result is applied by that
call's kernel (bit for bit the unfused result) or, for kernels that do not apply it, runs in
place on the call's new out. fuse=False keeps every instruction."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from executorch_export import pte_bytes
from models import SmallCnn
from torch import nn

import kiln

# What the fused convolution may differ by from convolution then batch norm (docs/programs.md,
# "Fusion at load"): weight * scale rounds once per weight, so each output may move by a few
# units in the last place of the terms it sums.
BN_RTOL = 1e-5
BN_ATOL = 1e-5


def _with_statistics(module: nn.Module, seed: int) -> nn.Module:
    """`module` in eval mode with batch-norm statistics and affine parameters far from the
    identity (random weights leave mean 0 and var 1, which would hide a wrong fold)."""
    generator = torch.Generator().manual_seed(seed)
    for layer in module.modules():
        if isinstance(layer, nn.BatchNorm2d):
            n = layer.num_features
            with torch.no_grad():
                layer.running_mean.copy_(torch.randn(n, generator=generator) * 0.5)
                layer.running_var.copy_(torch.rand(n, generator=generator) * 2 + 0.25)
                layer.weight.copy_(torch.randn(n, generator=generator))
                layer.bias.copy_(torch.randn(n, generator=generator))
    return module.eval()


class MobileBlock(nn.Module):
    """A mobilenet_v2-style inverted residual: 1x1 expand + BN + ReLU6, 3x3 depthwise + BN + ReLU6,
    1x1 project + BN, residual add."""

    def __init__(self, channels: int = 8, expand: int = 4) -> None:
        super().__init__()
        hidden = channels * expand
        self.expand = nn.Conv2d(channels, hidden, 1, bias=False)
        self.expand_bn = nn.BatchNorm2d(hidden)
        self.depthwise = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False)
        self.depthwise_bn = nn.BatchNorm2d(hidden)
        self.project = nn.Conv2d(hidden, channels, 1, bias=False)
        self.project_bn = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = nn.functional.relu6(self.expand_bn(self.expand(x)))
        y = nn.functional.relu6(self.depthwise_bn(self.depthwise(y)))
        return x + self.project_bn(self.project(y))


class Activations(nn.Module):
    """Calls whose kernels take the clamp (conv, linear, mm) and one that does not (add), each
    followed by an activation that alone reads it."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.depthwise = nn.Conv2d(4, 4, 3, padding=1, groups=4)
        self.linear = nn.Linear(16, 8)
        self.weight = nn.Parameter(torch.randn(8, 5))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        y = torch.relu(self.conv(x))
        y = nn.functional.hardtanh(self.depthwise(y), -0.5, 0.75)
        z = nn.functional.relu6(self.linear(y.flatten(2)))
        w = torch.clamp(z.flatten(0, 1) @ self.weight, -1.0, 2.0)
        return torch.relu(w + 0.5), torch.clamp(x * 2, min=0.25)


class SharedOut(nn.Module):
    """A convolution whose result the relu and a multiplication both read: nothing fuses."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        return torch.relu(y) * y


def _kiln_export(module: nn.Module, inputs: tuple[torch.Tensor, ...]) -> bytes:
    data = kiln.export(module, inputs)
    assert isinstance(data, bytes)
    return data


EXPORTERS: dict[str, Callable[[nn.Module, tuple[torch.Tensor, ...]], bytes]] = {
    "executorch": pte_bytes,
    "kiln": _kiln_export,
}


def _run_both(
    data: bytes, inputs: tuple[torch.Tensor, ...]
) -> tuple[kiln.Program, tuple[torch.Tensor, ...], tuple[torch.Tensor, ...]]:
    """The fused program after two runs, its outputs, and the unfused program's outputs."""
    plain = kiln.load(data, fuse=False)
    expected = plain.run(*inputs)
    assert plain.folded.fused_activations == plain.folded.fused_batch_norms == 0
    assert all(i.backend != "fused" and i.activation == "" for i in plain.instructions())
    fused = kiln.load(data)
    first = fused.run(*inputs)
    outputs = fused.run(*inputs)
    for a, b in zip(first, outputs, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)
    return fused, outputs, expected


def _ops(program: kiln.Program) -> list[tuple[str, str, str]]:
    return [(i.op, i.backend, i.activation) for i in program.instructions()]


@pytest.mark.parametrize("exporter", sorted(EXPORTERS))
def test_small_cnn_folds_batch_norms_and_fuses_relus(exporter: str) -> None:
    module = _with_statistics(SmallCnn(), seed=1)
    inputs = (torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(2)),)
    data = EXPORTERS[exporter](module, inputs)
    program, (out,), (expected,) = _run_both(data, inputs)
    torch.testing.assert_close(out, expected, rtol=BN_RTOL, atol=BN_ATOL)
    torch.testing.assert_close(out, module(*inputs), rtol=BN_RTOL, atol=BN_ATOL)
    assert program.folded.fused_batch_norms == 2
    ops = _ops(program)
    norm = "aten::_native_batch_norm_legit_no_training.out"
    assert [row for row in ops if row[0] == norm] == [(norm, "fused", "")] * 2
    # stem conv + BN + relu: the convolution applies the relu, which never runs.
    stem = ops.index(("aten::convolution.out", "portable", "aten::relu.out"))
    assert ops[stem + 1][:2] == (norm, "fused")
    assert ops[stem + 2] == ("aten::relu.out", "fused", "")
    # The residual relu follows an add, whose kernel does not clamp: fused or not (its out is
    # on the add's input, and a view of it is read later), it runs.
    add = [k for k, row in enumerate(ops) if row[0] == "aten::add.out"]
    assert len(add) == 1
    assert ops[add[0] + 1] == ("aten::relu.out", "portable", "")
    assert program.folded.fused_activations == 1 + (ops[add[0]][2] == "aten::relu.out")


@pytest.mark.parametrize("exporter", sorted(EXPORTERS))
def test_mobilenet_block_fuses_depthwise_and_pointwise_with_relu6(exporter: str) -> None:
    module = _with_statistics(MobileBlock(), seed=3)
    inputs = (torch.randn(1, 8, 10, 10, generator=torch.Generator().manual_seed(4)),)
    data = EXPORTERS[exporter](module, inputs)
    program, (out,), (expected,) = _run_both(data, inputs)
    torch.testing.assert_close(out, expected, rtol=BN_RTOL, atol=BN_ATOL)
    torch.testing.assert_close(out, module(*inputs), rtol=BN_RTOL, atol=BN_ATOL)
    assert program.folded.fused_batch_norms == 3
    assert program.folded.fused_activations == 2
    ops = _ops(program)
    assert ops.count(("aten::_native_batch_norm_legit_no_training.out", "fused", "")) == 3
    convs = [row for row in ops if row[0] == "aten::convolution.out"]
    assert convs == [
        ("aten::convolution.out", "portable", "aten::hardtanh.out"),
        ("aten::convolution.out", "portable", "aten::hardtanh.out"),
        ("aten::convolution.out", "portable", ""),
    ]
    assert [row[1] for row in ops if row[0] == "aten::hardtanh.out"] == ["fused", "fused"]


@pytest.mark.parametrize("exporter", sorted(EXPORTERS))
def test_a_batch_norm_with_zero_variance_plus_eps_stays_unfused(exporter: str) -> None:
    # var + eps == 0 in one channel (float32's -1e-5 + 1e-5): an infinite scale, which folded
    # weights cannot reproduce (the batch norm gives torch's NaN and -inf there), so it runs.
    module = _with_statistics(nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)), seed=6)
    with torch.no_grad():
        module[1].running_var[1] = -module[1].eps
    inputs = (torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(7)),)
    data = EXPORTERS[exporter](module, inputs)
    program, (out,), (expected,) = _run_both(data, inputs)
    torch.testing.assert_close(out, expected, rtol=BN_RTOL, atol=BN_ATOL, equal_nan=True)
    torch.testing.assert_close(out, module(*inputs), rtol=BN_RTOL, atol=BN_ATOL, equal_nan=True)
    assert not out[:, 1].isfinite().any() and out[:, [0, 2, 3]].isfinite().all()
    assert program.folded.fused_batch_norms == 0


@pytest.mark.parametrize("exporter", sorted(EXPORTERS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fused_activations_are_bit_exact(exporter: str, dtype: torch.dtype) -> None:
    module = Activations().to(dtype).eval()
    inputs = (torch.randn(2, 3, 4, 4, generator=torch.Generator().manual_seed(5), dtype=dtype),)
    data = EXPORTERS[exporter](module, inputs)
    program, outputs, expected = _run_both(data, inputs)
    for out, want, eager in zip(outputs, expected, module(*inputs), strict=True):
        assert out.dtype == dtype
        assert torch.equal(out, want)
        torch.testing.assert_close(out, eager)
    ops = _ops(program)
    # Which pairs fuse depends on the memory plan (an activation's out on its call's input, or
    # a view of it read later, keeps them apart); the first convolution's relu fuses in every
    # plan, and its kernel applies it.
    assert ops[0] == ("aten::convolution.out", "portable", "aten::relu.out")
    assert ops[1] == ("aten::relu.out", "fused", "")
    # Every fused pair: a kernel that clamps (conv, mm) applied it, the others ran it in place.
    for k, (op, _, activation) in enumerate(ops):
        if activation:
            clamps = op in ("aten::convolution.out", "aten::mm.out")
            assert ops[k + 1][1] == ("fused" if clamps else "portable"), ops
    assert program.folded.fused_activations == sum(1 for row in ops if row[2])


def test_an_integer_result_keeps_its_activation_running_in_place() -> None:
    class IntRelu(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x * 3)

    inputs = (torch.arange(-6, 6).reshape(3, 4),)
    program, (out,), (expected,) = _run_both(pte_bytes(IntRelu(), inputs), inputs)
    assert torch.equal(out, expected)
    assert torch.equal(out, torch.relu(inputs[0] * 3))
    assert program.folded.fused_activations == 1
    assert _ops(program)[-1] == ("aten::relu.out", "portable", "")


def test_a_result_read_twice_is_not_fused() -> None:
    module = SharedOut().eval()
    inputs = (torch.randn(1, 3, 5, 5),)
    program, (out,), (expected,) = _run_both(pte_bytes(module, inputs), inputs)
    assert torch.equal(out, expected)
    assert program.folded.fused_activations == 0
    assert all(i.backend != "fused" and i.activation == "" for i in program.instructions())


def test_profiles_show_the_fused_instructions() -> None:
    module = _with_statistics(SmallCnn(), seed=6)
    inputs = (torch.randn(2, 3, 8, 8),)
    program = kiln.load(pte_bytes(module, inputs))
    program.run(*inputs, profile=True)
    rows = program.last_profile()
    fused = [row for row in rows if row.backend == "fused"]
    assert len(fused) == 3  # two batch norms and the stem's relu
    assert all(row.ns == 0 for row in fused)
    assert "aten::convolution.out + aten::relu.out" in str(rows)
