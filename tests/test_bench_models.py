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
        "eager,kiln,kiln/kx,et,kiln/xnn",
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
    # Kiln runs no delegates: the XNNPACK program is a refusal cell (or, without XNNPACK's
    # partitioner installed, an export that could not be made), never a crash or a time.
    assert "kiln/xnn" not in result.ms[1]
    reason = result.unavailable["kiln/xnn"]
    assert "runs no delegates" in reason or "XNNPACK partitioner unavailable" in reason
    # The profile names the convolutions and sums to a positive time.
    profile = result.profiles["kiln"]
    assert any(op == "aten::convolution.out" for op, _, _ in profile)
    assert sum(ns for _, _, ns in profile) > 0
    assert "### Milliseconds per run, 1 thread" in text
    assert "### Correctness against eager" in text
    assert "aten::convolution.out" in text
    assert "[1]" in text and reason in text  # the refusal cell and its note


def test_a_wrong_output_is_flagged(bench: ModuleType) -> None:
    reference = torch.linspace(-2.0, 2.0, 50)
    absolute, relative = bench._compare(reference + 0.1, reference)
    assert absolute == pytest.approx(0.1) and relative == pytest.approx(0.05)
    result = bench.Result("m", scale=2.0, errors={"kiln": (absolute, relative)})
    table = "\n".join(bench.correctness_table([result], ["eager", "kiln"]))
    assert "**!**" in table
    with pytest.raises(bench.Unavailable, match="output shape"):
        bench._compare(reference[:10], reference)
