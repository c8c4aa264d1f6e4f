"""bench/models.py's machinery on its smallest model (tiny_cnn, plain torch): every runner it can
use here exports, loads, runs and matches eager; a runner it cannot use is a cell naming why;
the report has its tables and the profile."""

from __future__ import annotations

from types import ModuleType

import pytest
import torch

from buildtools import REPO_ROOT, load_script


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script(REPO_ROOT / "bench" / "models.py", "models_bench")


def test_tiny_model_through_every_runner(bench: ModuleType, tmp_path: object) -> None:
    argv = [
        "--models",
        "tiny_cnn",
        "--quick",
        "--threads",
        "1",
        "--runners",
        "eager,kiln,kiln/kx,et",
        "--profile",
    ]
    results, text = bench.benchmark(argv)
    (result,) = results
    assert not result.skipped
    # Calibrated batch norm: the output is not ~0, so the comparisons below mean something.
    assert result.scale > 0.05
    for runner in ("kiln", "kiln/kx", "et"):
        absolute, relative = result.errors[runner]
        assert relative < 1e-4, (runner, absolute, relative)
        assert result.ms[1][runner] > 0
        assert result.load_ms[runner] > 0
    assert result.ms[1]["eager"] > 0
    assert not result.unavailable
    # The profile names the convolutions and sums to a positive time.
    profile = result.profiles["kiln"]
    assert any(op == "aten::convolution.out" for op, _, _ in profile)
    assert sum(ns for _, _, ns in profile) > 0
    assert "### Milliseconds per run, 1 thread" in text
    assert "### Correctness against eager" in text
    assert "aten::convolution.out" in text


def test_int8_runners(bench: ModuleType) -> None:
    # The PT2E int8 program of the model, on Kiln and on ExecuTorch's runtime with its quantized
    # kernels, checked against the quantized module in eager PyTorch (one quantization step of
    # the output is about 1% of its range).
    argv = ["--models", "tiny_cnn", "--quick", "--threads", "1", "--runners", "eager,kiln/i8,et/i8"]
    (result,), text = bench.benchmark(argv)
    assert not result.unavailable
    for runner in ("kiln/i8", "et/i8"):
        absolute, relative = result.errors[runner]
        assert relative < 0.05, (runner, absolute, relative)
        assert result.ms[1][runner] > 0
    assert "Kiln (ET int8 pte)" in text


def test_a_refused_program_is_a_cell_with_its_reason(bench: ModuleType) -> None:
    # What Kiln says of a program it refuses (a delegate nobody registered, say) becomes the
    # runner's cell and note instead of stopping the benchmark.
    with pytest.raises(bench.Unavailable, match="refused at load: .*KilnError"):
        bench.KilnRunner(b"not a program")
    reason = "refused at load: KilnError: calls delegate 'CoreMLBackend', which is not registered"
    result = bench.Result("m", ms={1: {"eager": 2.0, "et+xnn": 1.0}})
    result.unavailable["kiln"] = reason
    text = "\n".join(bench.timing_table([result], 1, ["eager", "kiln", "et+xnn"]))
    assert "| m | 2.00 | [1] | 1.00 (0.50x) |" in text
    assert f"[1] {reason}" in text


def test_a_wrong_output_is_flagged(bench: ModuleType) -> None:
    reference = torch.linspace(-2.0, 2.0, 50)
    absolute, relative = bench._compare(reference + 0.1, reference)
    assert absolute == pytest.approx(0.1) and relative == pytest.approx(0.05)
    result = bench.Result("m", scale=2.0, errors={"kiln": (absolute, relative)})
    table = "\n".join(bench.correctness_table([result], ["eager", "kiln"]))
    assert "**!**" in table
    with pytest.raises(bench.Unavailable, match="output shape"):
        bench._compare(reference[:10], reference)
