"""The fuzzer's seed corpus: real .pte programs, the model zoo of tests/program as ExecuTorch
1.5.1's exporter and kiln.export write them.

python tests/fuzz/corpus.py OUT_DIR    writes them to OUT_DIR (for longer local fuzz runs)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import torch

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS), str(TESTS / "program")]

from executorch_export import pte_bytes  # noqa: E402
from models import ZOO  # noqa: E402

import kiln  # noqa: E402

EXPORTERS: dict[str, Callable[[torch.nn.Module, tuple[torch.Tensor, ...]], bytes]] = {
    "et": pte_bytes,
    "kiln": lambda module, inputs: kiln.export(module, inputs),
}
# Seed file names: <model>.<exporter>
SEEDS = tuple(f"{model.name}.{exporter}" for model in ZOO for exporter in EXPORTERS)


def export_corpus(out_dir: Path) -> list[Path]:
    """Writes <model>.<exporter>.pte for every zoo model and exporter (fixed weights, so the
    files are the same every time)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for model in ZOO:
        for exporter, export in EXPORTERS.items():
            pte = export(*model.create())
            path = out_dir / f"{model.name}.{exporter}.pte"
            if not path.exists() or path.read_bytes() != pte:
                path.write_bytes(pte)
            paths.append(path)
    for stale in set(out_dir.glob("*.pte")) - set(paths):
        stale.unlink()  # seeds of models no longer in the zoo
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/fuzz/corpus.py OUT_DIR")
    for written in export_corpus(Path(sys.argv[1])):
        print(written)
