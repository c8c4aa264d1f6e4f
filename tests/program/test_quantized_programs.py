"""Int8 programs as ExecuTorch users ship them undelegated: modules quantized by PT2E with
ExecuTorch's XNNPACKQuantizer (per-channel int8 weights; static activations calibrated ahead, or
dynamic ones whose parameters choose_qparams computes at run time), written by ExecuTorch
1.5.1's exporter. Kiln runs them with ExecuTorch's quantized operators and matches ExecuTorch's
own runtime on the same file, and the quantized module in eager PyTorch."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

import pytest
import torch
from executorch_export import (
    ExecuTorchMethod,
    load_quantized_kernels,
    operator_tables,
    pte_bytes,
    quantized_module,
)
from torch import nn

import kiln


class Cnn(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.depthwise = nn.Conv2d(32, 32, 3, padding=1, groups=32)
        self.fc = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        x = torch.nn.functional.hardtanh(self.depthwise(x), 0.0, 6.0) + x
        return self.fc(x.mean((2, 3)))


class Mlp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 64)
        self.fc3 = nn.Linear(64, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))) + x)


def _images(seed: int) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 24, 24, generator=torch.Generator().manual_seed(seed)),)


def _rows(seed: int) -> tuple[torch.Tensor, ...]:
    return (torch.randn(5, 64, generator=torch.Generator().manual_seed(seed)),)


# name: (module factory, input factory, dynamic activations)
CASES: dict[str, tuple[Callable[[], nn.Module], Callable[[int], tuple], bool]] = {
    "cnn_static": (Cnn, _images, False),
    "mlp_static": (Mlp, _rows, False),
    "mlp_dynamic": (Mlp, _rows, True),
}


@pytest.fixture(scope="module")
def programs() -> dict[str, tuple[nn.Module, bytes]]:
    load_quantized_kernels()
    built = {}
    for name, (factory, make_inputs, dynamic) in CASES.items():
        torch.manual_seed(0)
        calibration = [make_inputs(seed) for seed in range(1, 5)]
        module = quantized_module(factory(), make_inputs(0), calibration, dynamic=dynamic)
        built[name] = (module, pte_bytes(module, make_inputs(0)))
    return built


def _close(actual: torch.Tensor, expected: torch.Tensor, steps: float) -> None:
    """Within `steps` of the output's quantization step, estimated as the smallest gap between
    its distinct values: float convolutions summed in another order may move a value across a
    rounding boundary of a later quantization."""
    levels = expected.flatten().unique()
    step = float((levels[1:] - levels[:-1]).min()) if levels.numel() > 1 else 1.0
    torch.testing.assert_close(actual, expected, rtol=0, atol=steps * step)


@pytest.mark.parametrize("name", list(CASES))
def test_runs_like_executorch_and_eager(programs: dict, name: str) -> None:
    module, pte = programs[name]
    _, make_inputs, dynamic = CASES[name]
    ops = set(operator_tables(pte)["forward"])
    assert "quantized_decomposed::dequantize_per_channel.out" in ops
    if dynamic:
        assert "quantized_decomposed::choose_qparams.Tensor_out" in ops
    program = kiln.load(pte)
    executorch = ExecuTorchMethod(pte)
    for seed in (10, 11, 12):
        inputs = make_inputs(seed)
        (out,) = program.run(*inputs)
        (expected,) = executorch.run(*inputs)
        _close(out, expected, steps=1)
        with torch.no_grad():
            _close(out, module(*inputs), steps=2)


def test_int8_quantization_is_close_to_float(programs: dict) -> None:
    """The quantized program answers what the float module answers, to int8's precision: the
    program computes, not just runs."""
    torch.manual_seed(0)
    module = Cnn().eval()
    (int8,) = kiln.load(programs["cnn_static"][1]).run(*_images(10))
    with torch.no_grad():
        reference = module(*_images(10))
    assert float((int8 - reference).abs().max()) < 0.05 * float(reference.abs().max())


def test_program_loads_beside_executorch_libraries() -> None:
    """ExecuTorch's libraries loaded first and globally (as load_quantized_kernels does) hold
    symbols of the same names as Kiln's runtime (FlatBuffers' verifier): Kiln must keep calling
    its own."""
    script = (
        "import torch, executorch_export as ee, kiln\n"
        "ee.load_quantized_kernels()\n"
        "x = torch.randn(2, 8)\n"
        "pte = ee.pte_bytes(torch.nn.Linear(8, 3), (x,))\n"
        "print(kiln.load(pte).run(x)[0].shape)\n"
    )
    tests_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([tests_dir, os.environ.get("PYTHONPATH", "")])
    )
    # ExecuTorch first: import order is the point, so it runs in a fresh interpreter.
    script = "import executorch.runtime\n" + script
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "torch.Size([2, 3])" in result.stdout


def test_dequantize_takes_the_activation_after_it(programs: dict) -> None:
    """PT2E places relu and hardtanh after a dequantize: the dequantize kernel clamps as it
    stores, the activation is skipped, and the results are those of the unfused program (within
    one unit where the int8 calls fused at load round differently: test_int8_fusion.py)."""
    pte = programs["cnn_static"][1]
    fused, unfused = kiln.load(pte), kiln.load(pte, fuse=False)
    assert fused.folded.fused_int8 > 0
    inputs = _images(20)
    (out,) = fused.run(*inputs)
    (expected,) = unfused.run(*inputs)
    _close(out, expected, steps=1)
    skipped = [i.op for i in fused.instructions() if i.backend == "fused"]
    assert "aten::hardtanh.out" in skipped, fused.instructions()
