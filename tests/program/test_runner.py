"""kiln_runner (kiln_add_runner) on programs ExecuTorch exports: outputs match eager PyTorch."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from executorch_export import pte_bytes
from models import zoo_model

import kiln


def runner(native_build: Path) -> Path:
    return native_build / "tests" / "native" / "runner" / "kiln_runner_test"


def run_runner(native_build: Path, *args: object) -> subprocess.CompletedProcess[str]:
    command = [str(runner(native_build)), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("exporter", ["executorch", "kiln"])
@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_runner_matches_eager(native_build: Path, tmp_path: Path, name: str, exporter: str) -> None:
    module, (x,) = zoo_model(name).create()
    program = tmp_path / "model.pte"
    program.write_bytes(
        pte_bytes(module, (x,)) if exporter == "executorch" else kiln.export(module, (x,))
    )
    x.numpy().tofile(tmp_path / "x.bin")
    result = run_runner(
        native_build, program, tmp_path / "x.bin", "--output-dir", tmp_path, "--repeat", 3,
        "--profile",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    expected = module(x).detach()
    actual = np.fromfile(tmp_path / "output0.bin", dtype=np.float32).reshape(expected.shape)
    torch.testing.assert_close(torch.from_numpy(actual), expected, rtol=1e-4, atol=1e-5)
    assert f"output 0: Float {list(expected.shape)}" in result.stdout
    assert "latency:" in result.stdout and "aten::addmm.out" in result.stdout


def test_runner_threads_give_the_single_threaded_outputs(
    native_build: Path, tmp_path: Path
) -> None:
    module, (x,) = zoo_model("cnn").create()
    program = tmp_path / "model.pte"
    program.write_bytes(kiln.export(module, (x,)))
    x.numpy().tofile(tmp_path / "x.bin")
    outputs = []
    for threads in (1, 2):
        out_dir = tmp_path / f"threads{threads}"
        out_dir.mkdir()
        result = run_runner(
            native_build, program, tmp_path / "x.bin", "--output-dir", out_dir, "--threads", threads
        )
        assert result.returncode == 0, result.stderr
        outputs.append((out_dir / "output0.bin").read_bytes())
    assert outputs[0] == outputs[1]


def test_runner_folds_constants_unless_told_not_to(native_build: Path, tmp_path: Path) -> None:
    """The weights' transposes ExecuTorch leaves run once at load (the profile shows them as
    folded, the 'folded:' line counts them); --no-fold runs them at each run, same outputs."""
    module, (x,) = zoo_model("mlp").create()
    program = tmp_path / "model.pte"
    program.write_bytes(pte_bytes(module, (x,)))
    x.numpy().tofile(tmp_path / "x.bin")
    outputs = {}
    for flags in ((), ("--no-fold",)):
        out_dir = tmp_path / ("off" if flags else "on")
        out_dir.mkdir()
        result = run_runner(
            native_build, program, tmp_path / "x.bin", "--output-dir", out_dir, "--profile", *flags
        )
        assert result.returncode == 0, result.stderr
        outputs[flags] = (out_dir / "output0.bin").read_bytes()
        transposes = [line for line in result.stdout.splitlines() if "permute_copy" in line]
        assert len(transposes) == 2
        if flags:
            assert "folded: 0 instructions, 0 bytes" in result.stdout
            assert all("portable" in line for line in transposes)
        else:
            assert f"folded: 2 instructions, {(32 * 16 + 8 * 32) * 4} bytes" in result.stdout
            assert all("folded" in line for line in transposes)
    assert outputs[()] == outputs[("--no-fold",)]


@pytest.mark.parametrize("exporter", ["executorch", "kiln"])
def test_runner_takes_a_dynamic_inputs_shape(
    native_build: Path, tmp_path: Path, exporter: str
) -> None:
    """--shape I=D0,D1,... gives a dynamic input its sizes for the run, within its bounds."""
    module, (x,) = zoo_model("cnn").create()
    dims = {"x": {0: torch.export.Dim("batch", min=1, max=4)}}
    program = tmp_path / "model.pte"
    program.write_bytes(
        pte_bytes(module, (x,), dims)
        if exporter == "executorch"
        else kiln.export(module, (x,), dynamic_shapes=dims)
    )
    for batch in (3, 1, 4):
        x = torch.randn(batch, *x.shape[1:])
        x.numpy().tofile(tmp_path / "x.bin")
        shape = "0=" + ",".join(str(s) for s in x.shape)
        result = run_runner(
            native_build, program, tmp_path / "x.bin", "--shape", shape, "--output-dir", tmp_path
        )
        assert result.returncode == 0, result.stderr
        expected = module(x).detach()
        assert f"output 0: Float {list(expected.shape)}" in result.stdout
        actual = np.fromfile(tmp_path / "output0.bin", dtype=np.float32).reshape(expected.shape)
        torch.testing.assert_close(torch.from_numpy(actual), expected, rtol=1e-4, atol=1e-5)
    beyond = run_runner(native_build, program, "--shape", "0=5,3,8,8")
    assert beyond.returncode == 1
    assert "dimension 0 is 5, its bound 4" in beyond.stderr, beyond.stderr
    for shape, message in (
        ("0=2,3,8", "give as many sizes as the input has dimensions"),
        ("1=2,3,8,8", "no tensor input of that index"),
        ("0=2,,8,8", "--shape takes I=D0,D1,..., got '0=2,,8,8'"),
        ("x=1", "--shape's input index takes an integer"),
    ):
        result = run_runner(native_build, program, "--shape", shape)
        assert result.returncode != 0 and message in result.stderr, (shape, result.stderr)


def test_runner_refuses_bad_arguments(native_build: Path, tmp_path: Path) -> None:
    program = tmp_path / "mlp.pte"
    program.write_bytes(pte_bytes(*zoo_model("mlp").create()))
    short = tmp_path / "short.bin"
    short.write_bytes(b"\0" * 12)
    cases = [
        ((program, short), "input 0: .*short.bin has 12 bytes, the program's tensor needs 256"),
        ((program, "--backends", "gpu"), "unknown backend 'gpu'"),
        ((program, "--repeat"), "--repeat needs a value"),
        ((program, "--threads", "0"), r"--threads takes an integer in \[1, 256\], got '0'"),
        ((program, short, short), "takes 1 input, 2 were given"),
        ((tmp_path / "none.pte",), "cannot read"),
        ((short,), "too short|not a .pte"),
    ]
    for args, message in cases:
        result = run_runner(native_build, *args)
        assert result.returncode != 0
        assert re.search(message, result.stderr), (args, result.stderr)


def test_runner_reports_missing_operators(native_build: Path, tmp_path: Path) -> None:
    class Softmax(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.softmax(x, dim=-1)

    program = tmp_path / "softmax.pte"
    program.write_bytes(pte_bytes(Softmax(), (torch.randn(2, 8),)))
    result = run_runner(native_build, program)
    assert result.returncode == 1
    assert "Missing operator: [0] aten::_softmax.out (not registered)" in result.stderr
    assert "1 operator is missing" in result.stderr


@pytest.mark.parametrize(
    ("flag", "value", "accepted"),
    [
        ("--threads", "99999999999999999999", "[1, 256]"),
        ("--threads", "1000", "[1, 256]"),
        ("--repeat", "1e20", "[0, 1000000000]"),
        ("--repeat", "3x", "[0, 1000000000]"),
        ("--repeat", " 3", "[0, 1000000000]"),
        ("--seed", "-1", "[0, 18446744073709551615]"),
        ("--seed", "18446744073709551616", "[0, 18446744073709551615]"),
        ("--max-memory", "+5", "[0, 18446744073709551615]"),
    ],
)
def test_runner_parses_counts_strictly(
    native_build: Path, tmp_path: Path, flag: str, value: str, accepted: str
) -> None:
    program = tmp_path / "mlp.pte"
    program.write_bytes(pte_bytes(*zoo_model("mlp").create()))
    result = run_runner(native_build, program, flag, value)
    assert result.returncode == 2, result.stderr
    assert f"{flag} takes an integer in {accepted}, got '{value}'" in result.stderr


def test_runner_bounds_the_planned_memory(native_build: Path, tmp_path: Path) -> None:
    program = tmp_path / "mlp.pte"
    program.write_bytes(pte_bytes(*zoo_model("mlp").create()))
    assert run_runner(native_build, program).returncode == 0
    result = run_runner(native_build, program, "--max-memory", 1000)
    assert result.returncode == 1
    assert re.search(r"needs \d+ bytes, over the memory limit of 1000 bytes", result.stderr)


def test_runner_refuses_named_pipes_without_waiting(native_build: Path, tmp_path: Path) -> None:
    program = tmp_path / "mlp.pte"
    program.write_bytes(pte_bytes(*zoo_model("mlp").create()))
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for args in ((pipe,), (program, pipe)):
        result = run_runner(native_build, *args)  # a blocking open would time out here
        assert result.returncode == 1
        assert f"cannot read {pipe}: not a regular file" in result.stderr
