"""kiln-export: a saved torch.export program -> .pte; user errors are one line, exit code 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch
from models import zoo_model
from torch import nn

import kiln
from kiln._export.cli import main


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "kiln._export.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def test_saved_program_becomes_a_pte(tmp_path: Path) -> None:
    module, inputs = zoo_model("mlp").create()
    saved = tmp_path / "mlp.pt2"
    torch.export.save(torch.export.export(module, inputs), saved)
    output = tmp_path / "mlp.pte"
    assert main([str(saved), str(output)]) == 0
    assert output.read_bytes()[4:8] == b"ET12"


def test_data_writes_the_weights_to_a_data_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module, inputs = zoo_model("mlp").create()
    saved = tmp_path / "mlp.pt2"
    torch.export.save(torch.export.export(module, inputs), saved)
    output, data = tmp_path / "mlp.pte", tmp_path / "mlp.ptd"
    assert main([str(saved), str(output), "--data", str(data)]) == 0
    assert f"wrote {data} ({data.stat().st_size} bytes)" in capsys.readouterr().out
    program = kiln.load(output, data=data)
    with torch.no_grad():
        torch.testing.assert_close(program.run(*inputs)[0], module(*inputs))


class _Lgamma(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.lgamma(x)


def test_unsupported_operator_is_one_line_without_traceback(tmp_path: Path) -> None:
    saved = tmp_path / "lgamma.pt2"
    torch.export.save(torch.export.export(_Lgamma(), (torch.rand(3),)), saved)
    done = _cli(str(saved), str(tmp_path / "lgamma.pte"))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("kiln-export: node 'lgamma' (at test_export_cli.py:")
    assert "calls aten::lgamma: its out variant aten::lgamma.out cannot be used" in line
    assert "neither Kiln nor ExecuTorch's portable library has a kernel for it" in line


def test_missing_or_foreign_input_files_are_reported(tmp_path: Path) -> None:
    missing = _cli(str(tmp_path / "none.pt2"), str(tmp_path / "out.pte"))
    assert missing.returncode == 1 and "none.pt2: no such file" in missing.stderr
    foreign = tmp_path / "notes.pt2"
    foreign.write_text("not a program")
    done = _cli(str(foreign), str(tmp_path / "out.pte"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "cannot load it as a torch.export program" in done.stderr
