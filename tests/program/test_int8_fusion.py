"""Int8 calls at load (docs/quantized.md, "Int8 calls"): a dequantize -> convolution / linear
[-> relu / hardtanh] -> quantize chain on a constant int8 weight runs as one int8 call. Held to
the unfused program (Kiln's float chain), to ExecuTorch's runtime on the same file and to the
chain computed exactly (float64): within one quantization unit, and exactly in nearly every
element. Each gemm version (AVX-512 VNNI, AVX2, plain C++) gives the same bytes."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)
from executorch_export import ExecuTorchMethod, load_quantized_kernels, pte_bytes
from torch import nn

import kiln

qd = torch.ops.quantized_decomposed

# Elements of a chain's out that may differ by one unit from the float chain: the float chain
# rounds each product and partial sum, the int8 call sums exactly and rounds s_in * s_w once, so
# they part only where the float result lies within a few float ulps of a rounding boundary.
MAX_MISMATCH_RATE = 0.01


@dataclass(frozen=True)
class Case:
    name: str
    in_channels: int
    out_channels: int
    size: tuple[int, ...]  # (batch, h, w) for a convolution, (rows,) for a linear
    kernel: int = 0  # 0: a linear
    stride: int = 1
    padding: int = 0
    dilation: int = 1
    groups: int = 1  # depthwise when it is the channel count
    activation: str = ""  # "relu", "relu6" or ""
    bias: bool = True
    input_zero_point: int = 3
    output_zero_point: int = -5
    scale_span: float = 1.0  # weight scales from 1e-3 to 1e-3 * scale_span


CASES = [
    Case("pointwise", 16, 24, (1, 8, 8), kernel=1),
    Case("pointwise_odd", 13, 7, (1, 5, 9), kernel=1, activation="relu"),
    Case("conv3x3_pad", 5, 7, (1, 9, 11), kernel=3, padding=1, activation="relu"),
    Case("conv3x3_stride2", 6, 33, (1, 13, 10), kernel=3, stride=2, padding=1),
    Case("conv5x5_dilated", 3, 9, (1, 14, 12), kernel=5, padding=2, dilation=2),
    Case("conv7x7_stem", 3, 17, (1, 21, 19), kernel=7, stride=2, padding=3, activation="relu"),
    Case("conv_batch2", 4, 5, (2, 7, 6), kernel=3, padding=1, bias=False),
    Case(
        "relu6_range_ends",
        9,
        19,
        (1, 6, 7),
        kernel=3,
        padding=1,
        activation="relu6",
        input_zero_point=-128,
        output_zero_point=127,
    ),
    Case(
        "zero_points_high_low",
        11,
        16,
        (1, 5, 5),
        kernel=1,
        input_zero_point=127,
        output_zero_point=-128,
        scale_span=1000.0,
    ),
    Case("depthwise3x3", 24, 24, (1, 13, 11), kernel=3, padding=1, groups=24, activation="relu6"),
    Case(
        "depthwise3x3_stride2",
        17,
        17,
        (1, 9, 12),
        kernel=3,
        stride=2,
        padding=1,
        groups=17,
        input_zero_point=-128,
    ),
    Case("depthwise5x5_batch2", 5, 5, (2, 7, 7), kernel=5, padding=2, groups=5, bias=False),
    Case("linear", 37, 21, (5,), scale_span=1000.0),
    Case("linear_relu_one_row", 64, 10, (1,), activation="relu"),
    Case("linear_k_odd", 3, 70, (17,), input_zero_point=-128, output_zero_point=127),
]


def _random_cases(count: int, seed: int) -> list[Case]:
    """Shapes, strides, zero points and scale spans drawn at random (seeded): convolutions
    (depthwise one time in three), and linears."""
    gen = torch.Generator().manual_seed(seed)

    def draw(low: int, high: int) -> int:
        return int(torch.randint(low, high + 1, (), generator=gen))

    cases = []
    for index in range(count):
        kernel = (0, 1, 3, 5)[draw(0, 3)]
        in_channels = draw(1, 40)
        depthwise = kernel > 0 and draw(0, 2) == 0
        out_channels = in_channels if depthwise else draw(1, 40)
        stride, padding, dilation = draw(1, 2), draw(0, kernel // 2), draw(1, 2)
        span = dilation * (max(kernel, 1) - 1) + 1
        size = (
            (draw(1, 2), draw(span, span + 12), draw(span, span + 12)) if kernel else (draw(1, 9),)
        )
        cases.append(
            Case(
                f"random{index}",
                in_channels,
                out_channels,
                size,
                kernel=kernel,
                stride=stride if kernel else 1,
                padding=padding,
                dilation=dilation if kernel else 1,
                groups=in_channels if depthwise else 1,
                activation=("", "relu", "relu6")[draw(0, 2)],
                bias=draw(0, 3) > 0,
                input_zero_point=draw(-128, 127),
                output_zero_point=draw(-128, 127),
                scale_span=float(10 ** draw(0, 3)),
            )
        )
    return cases


CASES += _random_cases(6, seed=2026)


class Chain(nn.Module):
    """dequantize_per_tensor -> conv2d / linear on a per-channel int8 weight -> [activation] ->
    quantize_per_tensor, written with the quantized_decomposed operators PT2E writes."""

    def __init__(self, case: Case, seed: int) -> None:
        super().__init__()
        gen = torch.Generator().manual_seed(seed)
        shape = (case.out_channels, case.in_channels // case.groups) + (
            (case.kernel, case.kernel) if case.kernel else ()
        )
        self.register_buffer("wq", torch.randint(-127, 128, shape, generator=gen, dtype=torch.int8))
        span = torch.logspace(0, torch.log10(torch.tensor(case.scale_span)), case.out_channels)
        self.register_buffer(
            "scales", 1e-3 * span[torch.randperm(case.out_channels, generator=gen)]
        )
        self.register_buffer("zero_points", torch.zeros(case.out_channels, dtype=torch.long))
        bias = torch.randn(case.out_channels, generator=gen) if case.bias else None
        self.bias = nn.Parameter(bias, requires_grad=False) if bias is not None else None
        self.in_scale = 0.05
        self.case = case
        # An out scale that spreads the results over the int8 range (as calibration would).
        self.out_scale = 1.0
        with torch.no_grad():
            y = self.exact(_input(case, 0), quantize=False)
        self.out_scale = float(y.abs().max()) / 100 + 1e-6

    def forward(self, xq: torch.Tensor) -> torch.Tensor:
        case = self.case
        x = qd.dequantize_per_tensor(
            xq, self.in_scale, case.input_zero_point, -128, 127, torch.int8
        )
        w = qd.dequantize_per_channel(
            self.wq, self.scales, self.zero_points, 0, -127, 127, torch.int8
        )
        if case.kernel:
            y = nn.functional.conv2d(
                x, w, self.bias, case.stride, case.padding, case.dilation, case.groups
            )
        else:
            y = nn.functional.linear(x, w, self.bias)
        if case.activation == "relu":
            y = torch.relu(y)
        elif case.activation == "relu6":
            y = nn.functional.hardtanh(y, 0.0, 6.0)
        return qd.quantize_per_tensor(
            y, self.out_scale, case.output_zero_point, -128, 127, torch.int8
        )

    def exact(self, xq: torch.Tensor, quantize: bool = True) -> torch.Tensor:
        """The chain in float64 from the float32 parameters the kernels use (without the last
        quantize: its float result)."""
        case = self.case
        x = (xq.double() - case.input_zero_point) * torch.tensor(self.in_scale).float().double()
        w = self.wq.double() * self.scales.double().view(-1, *([1] * (self.wq.dim() - 1)))
        bias = self.bias.double() if self.bias is not None else None
        if case.kernel:
            y = nn.functional.conv2d(
                x, w, bias, case.stride, case.padding, case.dilation, case.groups
            )
        else:
            y = nn.functional.linear(x, w, bias)
        if case.activation == "relu":
            y = y.clamp(min=0)
        elif case.activation == "relu6":
            y = y.clamp(0, 6)
        if not quantize:
            return y
        inv = 1.0 / torch.tensor(self.out_scale).float().double()
        q = torch.round(y * inv) + case.output_zero_point
        return q.clamp(-128, 127).to(torch.int8)


def _input(case: Case, seed: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    if case.kernel:
        batch, h, w = case.size
        shape: tuple[int, ...] = (batch, case.in_channels, h, w)
    else:
        shape = (case.size[0], case.in_channels)
    return torch.randint(-128, 128, shape, generator=gen, dtype=torch.int8)


@pytest.fixture(scope="module")
def programs() -> dict[str, tuple[Chain, bytes]]:
    load_quantized_kernels()
    built = {}
    for index, case in enumerate(CASES):
        module = Chain(case, seed=index).eval()
        built[case.name] = (module, pte_bytes(module, (_input(case, 0),)))
    return built


def _units_apart(a: torch.Tensor, b: torch.Tensor) -> tuple[int, float]:
    """The largest difference in quantization units, and the share of elements that differ."""
    diff = (a.int() - b.int()).abs()
    return int(diff.max()), float((diff != 0).float().mean())


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_int8_call_matches_the_float_chain(programs: dict, case: Case) -> None:
    module, pte = programs[case.name]
    fused, unfused = kiln.load(pte), kiln.load(pte, fuse=False)
    assert fused.folded.fused_int8 == 1 and unfused.folded.fused_int8 == 0
    executorch = ExecuTorchMethod(pte)
    for seed in (1, 2, 3):
        xq = _input(case, seed)
        (out,) = fused.run(xq)
        assert out.dtype == torch.int8
        for name, reference in (
            ("unfused", unfused.run(xq)[0]),
            ("executorch", executorch.run(xq)[0]),
            ("exact", module.exact(xq)),
        ):
            apart, rate = _units_apart(out, reference)
            assert apart <= 1 and rate <= MAX_MISMATCH_RATE, (name, apart, rate)


def test_int8_call_is_visible(programs: dict) -> None:
    pte = programs["conv3x3_pad"][1]
    program = kiln.load(pte)
    program.run(_input(CASES[2], 1), profile=True)
    rows = {row.op: row.backend for row in program.last_profile() if row.backend != "folded"}
    assert rows == {
        "quantized_decomposed::dequantize_per_tensor.out": "fused",
        "aten::convolution.out": "int8",
        "aten::relu.out": "fused",
        "quantized_decomposed::quantize_per_tensor.out": "fused",
    }
    assert "int8" in str(program.last_profile())


class SharedFloat(nn.Module):
    """The convolution's float result is also returned: the chain stays unfused."""

    def __init__(self) -> None:
        super().__init__()
        self.chain = Chain(CASES[0], seed=0)

    def forward(self, xq: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = qd.dequantize_per_tensor(xq, 0.05, 3, -128, 127, torch.int8)
        w = qd.dequantize_per_channel(
            self.chain.wq, self.chain.scales, self.chain.zero_points, 0, -127, 127, torch.int8
        )
        y = nn.functional.conv2d(x, w)
        return qd.quantize_per_tensor(y, 0.1, 0, -128, 127, torch.int8), y


class Grouped(nn.Module):
    """A grouped convolution that is not depthwise (two channels per group): not an int8 call, it
    runs on the float chain."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("wq", torch.randint(-127, 128, (8, 2, 3, 3), dtype=torch.int8))
        self.register_buffer("scales", torch.full((8,), 0.01))

    def forward(self, xq: torch.Tensor) -> torch.Tensor:
        x = qd.dequantize_per_tensor(xq, 0.05, 0, -128, 127, torch.int8)
        w = qd.dequantize_per_channel(self.wq, self.scales, None, 0, -127, 127, torch.int8)
        y = nn.functional.conv2d(x, w, padding=1, groups=4)
        return qd.quantize_per_tensor(y, 0.1, 0, -128, 127, torch.int8)


@pytest.mark.parametrize("module", [SharedFloat, Grouped])
def test_ineligible_chains_run_unfused(module: type[nn.Module]) -> None:
    load_quantized_kernels()
    torch.manual_seed(0)
    xq = torch.randint(-128, 128, (1, 16 if module is SharedFloat else 8, 6, 6), dtype=torch.int8)
    pte = pte_bytes(module().eval(), (xq,))
    program = kiln.load(pte)
    assert program.folded.fused_int8 == 0
    for got, want in zip(program.run(xq), kiln.load(pte, fuse=False).run(xq), strict=True):
        torch.testing.assert_close(got, want, rtol=0, atol=0)


# Runs the saved programs in a process whose gemm KILN_CPU_ISA capped, and prints how many of
# their outs differ from those saved beside them (every version computes the same arithmetic).
CAPPED_SCRIPT = """
import sys, torch, kiln
from pathlib import Path
differ = 0
for pte in sorted(Path(sys.argv[1]).glob("*.pte")):
    xq, want = torch.load(pte.with_suffix(".pt"))
    (got,) = kiln.load(pte.read_bytes()).run(xq)
    differ += int(not torch.equal(got, want))
print("differ", differ)
"""


@pytest.mark.parametrize("isa", ["x86-64-v3", "baseline"])
def test_each_gemm_version_gives_the_same_bytes(programs: dict, isa: str, tmp_path: Path) -> None:
    for case in CASES:
        pte = programs[case.name][1]
        xq = _input(case, 7)
        (tmp_path / f"{case.name}.pte").write_bytes(pte)
        torch.save((xq, kiln.load(pte).run(xq)[0]), tmp_path / f"{case.name}.pt")
    env = {**os.environ, "KILN_CPU_ISA": isa}
    result = subprocess.run(
        [sys.executable, "-c", CAPPED_SCRIPT, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0 and result.stdout.split()[-2:] == ["differ", "0"], (
        result.stdout[-2000:] + result.stderr[-2000:]
    )
