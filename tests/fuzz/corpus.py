"""The fuzzer's seed corpus: real .pte programs, the model zoo of tests/program as ExecuTorch
1.5.1's exporter and kiln.export write them, some of it with dynamic shapes, some lowered with
ExecuTorch's XNNPACK partitioner (delegate calls whose payloads are XNNPACK graphs, float and int8),
some quantized by PT2E (quantized_decomposed operators), and some with its weights in a .ptd data
file beside the program (external constants), which the fuzzers mutate too.

python tests/fuzz/corpus.py OUT_DIR    writes them to OUT_DIR (for longer local fuzz runs)
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS), str(TESTS / "program"), str(TESTS / "fuzz" / "python")]

from executorch_export import (  # noqa: E402
    external_pte_bytes,
    load_quantized_kernels,
    pte_bytes,
    quantized_module,
    xnnpack_pte_bytes,
)
from models import ZOO, zoo_model  # noqa: E402
from paired_input import join_input  # noqa: E402
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


def _kiln_external(
    module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]
) -> tuple[bytes, bytes]:
    with tempfile.TemporaryDirectory() as directory:
        data = Path(directory) / "weights.ptd"
        return kiln.export(module, inputs, data_path=data), data.read_bytes()


# Exporters of a program and its data file, and the models they export.
EXTERNAL_EXPORTERS: dict[
    str, Callable[[torch.nn.Module, tuple[torch.Tensor, ...]], tuple[bytes, bytes]]
] = {"et_external": external_pte_bytes, "kiln_external": _kiln_external}
EXTERNAL_MODELS = ("mlp", "cnn", "transformer_block")
# Models also lowered with the XNNPACK partitioner: fully connected, NHWC convolution and pooling
# with fused activations, batch matrix multiplication, softmax and gelu between kernel calls.
XNNPACK_MODELS = ("mlp", "cnn", "transformer_block")
# int8 programs (PT2E with the XNNPACK quantizer; their exporters' names end in "_int8"): a static
# CNN plain and delegated, a dynamic transformer block delegated (per-token int8 values in its
# graphs).
INT8_SEEDS = ("cnn.et_int8", "cnn.et_xnnpack_int8", "transformer_block.et_xnnpack_dynamic_int8")

# Seed file names: <model>.<exporter>, <model>.et_dynamic, <model>.et_xnnpack, the int8 ones and
# <model>.<external exporter> (a .pte and a .ptd)
SEEDS = (
    tuple(f"{model.name}.{exporter}" for model in ZOO for exporter in EXPORTERS)
    + tuple(f"{name}.et_dynamic" for name in _dynamic_dims())
    + tuple(f"{name}.et_xnnpack" for name in XNNPACK_MODELS)
    + INT8_SEEDS
    + tuple(f"{name}.{exporter}" for name in EXTERNAL_MODELS for exporter in EXTERNAL_EXPORTERS)
)


def _int8_export(seed: str) -> bytes:
    name, kind = seed.split(".")
    module, inputs = zoo_model(name).create()
    quantized = quantized_module(module, inputs, [inputs], dynamic="dynamic" in kind)
    if kind != "et_int8":
        return xnnpack_pte_bytes(quantized, inputs)
    load_quantized_kernels()  # the out variants ExecuTorch's exporter looks for
    return pte_bytes(quantized, inputs)


def _write(path: Path, data: bytes) -> Path:
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    return path


def seed_input(program: Path) -> bytes:
    """The fuzz input of a seed as the driver makes it (tests/fuzz/paired_input.h): the program,
    or, with a data file beside it, "KILNPAIR", the program's size, the program, the data file."""
    data = program.with_suffix(".ptd")
    if not data.exists():
        return program.read_bytes()
    return join_input(program.read_bytes(), data.read_bytes())


def export_corpus(out_dir: Path) -> list[Path]:
    """Writes <model>.<exporter>.pte for every zoo model and exporter, and the external ones'
    .ptd beside their .pte (fixed weights, so the files are the same every time). Returns the
    .pte files."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    data_files = []
    for model in ZOO:
        for exporter, export in EXPORTERS.items():
            paths.append(_write(out_dir / f"{model.name}.{exporter}.pte", export(*model.create())))
    for name in _dynamic_dims():
        paths.append(_write(out_dir / f"{name}.et_dynamic.pte", _dynamic_export(name)))
    for name in XNNPACK_MODELS:
        pte = xnnpack_pte_bytes(*zoo_model(name).create())
        paths.append(_write(out_dir / f"{name}.et_xnnpack.pte", pte))
    for seed in INT8_SEEDS:
        paths.append(_write(out_dir / f"{seed}.pte", _int8_export(seed)))
    for name in EXTERNAL_MODELS:
        for exporter, export_external in EXTERNAL_EXPORTERS.items():
            pte, ptd = export_external(*zoo_model(name).create())
            paths.append(_write(out_dir / f"{name}.{exporter}.pte", pte))
            data_files.append(_write(out_dir / f"{name}.{exporter}.ptd", ptd))
    written = set(paths) | set(data_files)
    for stale in (set(out_dir.glob("*.pte")) | set(out_dir.glob("*.ptd"))) - written:
        stale.unlink()  # seeds of models no longer in the zoo
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/fuzz/corpus.py OUT_DIR")
    for written in export_corpus(Path(sys.argv[1])):
        print(written)
