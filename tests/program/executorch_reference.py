"""ExecuTorch 1.5.1 itself, the reference the compatibility tests export and run with.

tools/setup.sh installs it; without it these tests fail (they do not skip) and say so.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch


def _executorch() -> Any:
    try:
        import executorch.exir
        import executorch.runtime
    except ImportError as error:
        pytest.fail(f"ExecuTorch 1.5.1 is not installed ({error}): run tools/setup.sh")
    return executorch


def export_with_executorch(module: torch.nn.Module, inputs: tuple[Any, ...]) -> bytes:
    """The .pte ExecuTorch's own exporter writes for `module`."""
    executorch = _executorch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exported = torch.export.export(module, inputs)
        program = executorch.exir.to_edge(exported).to_executorch()
    return bytes(program.buffer)


class ExecuTorchMethod:
    """`forward` of a .pte loaded by ExecuTorch's runtime."""

    def __init__(self, pte: bytes) -> None:
        runtime = _executorch().runtime.Runtime.get()
        self._method = runtime.load_program(pte).load_method("forward")

    def run(self, *inputs: Any) -> tuple[Any, ...]:
        return tuple(self._method.execute(list(inputs)))
