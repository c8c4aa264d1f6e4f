"""The README's first command: examples/programs/demo.py exports, builds lean runners from the
installed Kiln's CMake package, runs them and prints a table; every model matches PyTorch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_programs_demo_runs_and_matches(tmp_path: Path) -> None:
    demo = REPO / "examples" / "programs" / "demo.py"
    result = subprocess.run(
        [sys.executable, str(demo), "--build-dir", str(tmp_path), "--runs", "3"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {
        line.split()[0]: line.split()
        for line in result.stdout.splitlines()
        if line.startswith(("cnn ", "transformer "))
    }
    assert set(rows) == {"cnn", "transformer"}, result.stdout
    for name, row in rows.items():
        max_error, runner_kb = float(row[1]), float(row[2])
        assert max_error < 1e-4, (name, result.stdout)
        assert 0 < runner_kb < 2048, (name, result.stdout)
