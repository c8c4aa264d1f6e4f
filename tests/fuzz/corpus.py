"""The fuzzer's seed corpus: real .pte programs, the model zoo of tests/program as ExecuTorch
1.5.1's exporter and kiln.export write them, and some of it with dynamic shapes.

python tests/fuzz/corpus.py OUT_DIR    writes them to OUT_DIR (for longer local fuzz runs)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS), str(TESTS / "program")]

from executorch_export import pte_bytes  # noqa: E402
from models import ZOO, zoo_model  # noqa: E402
from torch.export import Dim  # noqa: E402

import kiln  # noqa: E402

EXPORTERS: dict[str, Callable[[torch.nn.Module, tuple[torch.Tensor, ...]], bytes]] = {
    "et": pte_bytes,
    "kiln": lambda module, inputs: kiln.export(module, inputs),
}


def _dynamic_dims() -> dict[str, dict[int, Any]]:
    """Zoo models also exported by ExecuTorch with dynamic shapes (torch.export.Dim): the batch
    of the MLP and the CNN, the sequence of the transformer block (sym_size, prim arithmetic,
    et_view and int lists computed at run time)."""
    return {
        "mlp": {0: Dim("batch", min=1, max=8)},
        "cnn": {0: Dim("batch", min=1, max=4)},
        "transformer_block": {1: Dim("tokens", min=2, max=12)},
    }


def _dynamic_export(name: str) -> bytes:
    module, inputs = zoo_model(name).create()
    return pte_bytes(module, inputs, {"x": _dynamic_dims()[name]})


# Seed file names: <model>.<exporter>, and <model>.et_dynamic
SEEDS = tuple(f"{model.name}.{exporter}" for model in ZOO for exporter in EXPORTERS) + tuple(
    f"{name}.et_dynamic" for name in _dynamic_dims()
)


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
    for name in _dynamic_dims():
        pte = _dynamic_export(name)
        path = out_dir / f"{name}.et_dynamic.pte"
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
