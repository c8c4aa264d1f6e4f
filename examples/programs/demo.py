"""Kiln's end-to-end demo: export models with kiln.export, build a lean runner per program with
the CMake API of the installed Kiln, run them, and compare, 1 thread, against eager PyTorch and
against ExecuTorch's own runtime on the same .pte.

Printed per model: the largest difference from PyTorch's output, the stripped runner's size, and
latencies: the runner's (C++, mean over runs), eager PyTorch's, and ExecuTorch's runtime's
through its Python API; Kiln's Python API is shown too, for a like-for-like comparison with it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

import kiln

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from models import demo_models  # noqa: E402


def fail(message: str) -> None:
    raise SystemExit(f"demo: {message}")


def run(command: list[str], what: str) -> str:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{what} failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return result.stdout


def median_us(body: Callable[[], Any], runs: int) -> float:
    body()
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        body()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples) / 1e3


def executorch_us(pte: Path, inputs: tuple[torch.Tensor, ...], runs: int) -> str:
    try:
        from executorch.runtime import Runtime
    except ImportError:
        return "n/a"
    method = Runtime.get().load_program(str(pte)).load_method("forward")
    return f"{median_us(lambda: method.execute(list(inputs)), runs):.1f}"


def build_runners(programs: list[Path], build: Path) -> None:
    configure = [
        "cmake", "-S", str(HERE), "-B", str(build), "-G", "Ninja",
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DCMAKE_PREFIX_PATH={kiln.cmake_prefix_path}",
        f"-DKILN_PYTHON_EXECUTABLE={sys.executable}",
        "-DKILN_DEMO_PROGRAMS=" + ";".join(str(p) for p in programs),
    ]  # fmt: skip
    run(configure, "configuring the runners")
    started = time.perf_counter()
    run(["cmake", "--build", str(build)], "building the runners")
    print(f"built {len(programs)} runners in {time.perf_counter() - started:.0f} s\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", type=Path, default=HERE / "build")
    parser.add_argument("--runs", type=int, default=200, help="runs per latency")
    options = parser.parse_args()
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    work = options.build_dir
    work.mkdir(parents=True, exist_ok=True)

    models = demo_models()
    programs = []
    for name, module, inputs in models:
        path = work / f"{name}.pte"
        kiln.export(module, inputs, path)
        programs.append(path)
        print(
            f"exported {name}: {path.stat().st_size} bytes, operators "
            f"{', '.join(kiln.load(path).operators)}"
        )
    build_runners(programs, work / "cmake")

    header = (
        f"{'model':12} {'max error':>10} {'runner KB':>10} {'runner us':>10} "
        f"{'eager us':>9} {'ET py us':>9} {'Kiln py us':>10} {'/eager':>7}"
    )
    rows = []
    for (name, module, inputs), pte in zip(models, programs, strict=True):
        runner = work / "cmake" / f"{name}_runner"
        stripped = work / f"{name}_runner.stripped"
        shutil.copy(runner, stripped)
        run(["strip", str(stripped)], "strip")
        files = []
        for i, tensor in enumerate(inputs):
            files.append(work / f"{name}_input{i}.bin")
            tensor.contiguous().numpy().tofile(files[-1])
        output = run(
            [str(runner), str(pte), *map(str, files), "--output-dir", str(work),
             "--repeat", str(options.runs)],
            f"running {name}_runner",
        )  # fmt: skip
        measured = re.search(r"latency: ([0-9.]+) us", output)
        if measured is None:
            fail(f"{name}_runner printed no latency:\n{output}")
        latency = float(measured.group(1))
        with torch.no_grad():
            expected = module(*inputs)
            eager = median_us(lambda m=module, x=inputs: m(*x), options.runs)
        actual = torch.from_numpy(np.fromfile(work / "output0.bin", dtype=np.float32))
        actual = actual.reshape(expected.shape)
        error = (actual - expected).abs().max().item()
        program = kiln.load(pte)
        kiln_py = median_us(lambda p=program, x=inputs: p.run(*x), options.runs)
        rows.append(
            f"{name:12} {error:10.2e} {stripped.stat().st_size / 1024:10.0f} {latency:10.1f} "
            f"{eager:9.1f} {executorch_us(pte, inputs, options.runs):>9} {kiln_py:10.1f} "
            f"{latency / eager:6.2f}x"
        )
    print(header)
    print("\n".join(rows))


if __name__ == "__main__":
    try:
        main()
    except kiln.KilnError as error:
        fail(str(error))
