"""Codegen wall time for every operator of functions.yaml: cold (no schema cache) and warm."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from history import compare

ROOT = Path(__file__).resolve().parent.parent


def _run_codegen(output: str, cache_dir: str, use_cache: bool) -> float:
    env = dict(
        os.environ, KILN_CODEGEN_CACHE_DIR=cache_dir, KILN_CODEGEN_CACHE="1" if use_cache else "0"
    )
    command = [
        sys.executable,
        "-m",
        "kiln.codegen",
        "--functions-yaml",
        str(ROOT / "functions.yaml"),
        "--include-all-ops",
        "--output-dir",
        output,
        "--lib-name",
        "all_ops",
    ]
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, env=env)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        cache = os.path.join(scratch, "cache")
        cold = statistics.median(_run_codegen(scratch, cache, use_cache=False) for _ in range(3))
        _run_codegen(scratch, cache, use_cache=True)  # fills the cache
        warm = statistics.median(_run_codegen(scratch, cache, use_cache=True) for _ in range(5))
    print(compare("codegen all ops, cold cache", cold, "s"))
    print(compare("codegen all ops, warm cache", warm, "s"))


if __name__ == "__main__":
    main()
