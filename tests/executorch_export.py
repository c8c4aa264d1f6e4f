"""Programs written by ExecuTorch 1.5.1's exporter, the reference .pte writer, and its own reading
of them, for the tests of what Kiln reads from .pte files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch


def _executorch() -> Any:
    try:
        import executorch.exir
    except ImportError as error:
        pytest.fail(
            f"executorch cannot be imported ({error}); run tools/setup.sh, which installs "
            "ExecuTorch 1.5.1 for these tests"
        )
    return executorch.exir


def pte_bytes(
    module: torch.nn.Module, inputs: tuple[torch.Tensor, ...], dynamic_shapes: Any = None
) -> bytes:
    """The .pte program ExecuTorch writes for ``module`` traced on ``inputs`` (with
    torch.export's ``dynamic_shapes``, if given). Buffers the module mutates keep their initial
    value in the file: ExecuTorch stores it only when asked (InitializedMutableBufferPass), and
    leaves the state undefined otherwise."""
    exir = _executorch()
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    program = torch.export.export(module.eval(), inputs, dynamic_shapes=dynamic_shapes)
    buffers = [name for name, _ in module.named_buffers()]
    config = exir.ExecutorchBackendConfig(passes=[InitializedMutableBufferPass(buffers)])
    data: bytes = exir.to_edge(program).to_executorch(config).buffer
    return data


def methods_pte_bytes(
    methods: dict[str, tuple[torch.nn.Module, tuple[torch.Tensor, ...]]],
) -> bytes:
    """One .pte program with a method (execution plan) per entry of ``methods``."""
    exir = _executorch()
    programs = {
        name: torch.export.export(module.eval(), inputs)
        for name, (module, inputs) in methods.items()
    }
    data: bytes = exir.to_edge(programs).to_executorch().buffer
    return data


def write_pte(path: Path, module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]) -> Path:
    path.write_bytes(pte_bytes(module, inputs))
    return path


def operator_tables(data: bytes) -> dict[str, list[str]]:
    """Each method's operator table as ExecuTorch itself deserializes it: ``ns::op.overload``,
    or ``ns::op`` for the default overload."""
    _executorch()
    from executorch.exir._serialize._program import deserialize_pte_binary

    program = deserialize_pte_binary(data).program
    return {
        plan.name: [f"{op.name}.{op.overload}" if op.overload else op.name for op in plan.operators]
        for plan in program.execution_plan
    }


class ExecuTorchMethod:
    """``forward`` of a .pte program loaded by ExecuTorch's own runtime."""

    def __init__(self, pte: bytes) -> None:
        _executorch()
        from executorch.runtime import Runtime

        self._method = Runtime.get().load_program(pte).load_method("forward")

    def run(self, *inputs: Any) -> tuple[Any, ...]:
        return tuple(self._method.execute(list(inputs)))
