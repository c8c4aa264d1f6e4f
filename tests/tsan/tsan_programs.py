"""The programs the concurrency test runs (tests/tsan/concurrency_test.cpp), as kiln.export writes
them: models of the program zoo (tests/program/models.py), and "wide", whose tensors are large
enough that its kernels split their loops over a thread pool (docs/threads.md's grains).

python tests/tsan/tsan_programs.py OUT_DIR    writes them to OUT_DIR and prints NAME=PATH arguments
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from torch import nn

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS / "program")]

from models import zoo_model  # noqa: E402

import kiln  # noqa: E402

# Small zoo models: attention and matmuls, a plain MLP, and a mutated buffer (state per Method).
ZOO_NAMES = ("mlp", "transformer_block", "accumulator")


class Wide(nn.Module):
    """Elementwise ops, layer norm, softmax, a row sum and a gemm on a 128x512 input: each above
    its parallel grain, so that two or more threads split every kernel. The broadcast sum of two
    parameters is a call on constants whose result is larger than they are, which kiln.export
    leaves in the program: Method::load folds it (on the load's pool)."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(512)
        self.fc = nn.Linear(512, 64)
        self.row = nn.Parameter(torch.randn(128, 1))
        self.col = nn.Parameter(torch.randn(1, 512))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.relu(x * 2.0 + (self.row + self.col))
        h = torch.softmax(self.norm(h), dim=-1)
        return self.fc(h), h.sum(dim=0)


def _wide() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(0)
    return Wide().eval(), (torch.randn(128, 512),)


def export_programs(out_dir: Path) -> dict[str, Path]:
    """Writes <name>.pte for every program (fixed weights: the same bytes every time) and returns
    them by name. An unchanged file is left alone, so that its build and runs stay cached."""
    out_dir.mkdir(parents=True, exist_ok=True)
    modules = {name: zoo_model(name).create for name in ZOO_NAMES}
    modules["wide"] = _wide
    paths = {}
    for name, create in modules.items():
        pte = kiln.export(*create())
        path = out_dir / f"{name}.pte"
        if not path.exists() or path.read_bytes() != pte:
            path.write_bytes(pte)
        paths[name] = path
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/tsan/tsan_programs.py OUT_DIR")
    for program, written in export_programs(Path(sys.argv[1])).items():
        print(f"{program}={written}")
