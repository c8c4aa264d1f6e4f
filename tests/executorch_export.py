"""Programs written by ExecuTorch 1.5.1's exporter, the reference .pte writer, and its own reading
of them, for the tests of what Kiln reads from .pte files."""

from __future__ import annotations

import tempfile
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

    if not isinstance(module, torch.fx.GraphModule):  # PT2E's modules refuse .eval()
        module.eval()
    program = torch.export.export(module, inputs, dynamic_shapes=dynamic_shapes)
    buffers = [name for name, _ in module.named_buffers()]
    config = exir.ExecutorchBackendConfig(passes=[InitializedMutableBufferPass(buffers)])
    data: bytes = exir.to_edge(program).to_executorch(config).buffer
    return data


def external_pte_bytes(
    module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]
) -> tuple[bytes, bytes]:
    """The .pte program and its .ptd data file that ExecuTorch writes for ``module`` exported
    with external constants (``ExecutorchBackendConfig(external_constants=True)``): every
    constant tensor in the data file, under its fully qualified name."""
    exir = _executorch()
    module.eval()
    program = torch.export.export(module, inputs)
    config = exir.ExecutorchBackendConfig(external_constants=True)
    executorch_program = exir.to_edge(program).to_executorch(config)
    with tempfile.TemporaryDirectory() as directory:
        executorch_program.write_tensor_data_to_file(directory)
        (data_file,) = Path(directory).glob("*.ptd")
        return executorch_program.buffer, data_file.read_bytes()


def xnnpack_pte_bytes(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]) -> bytes:
    """The .pte program ExecuTorch writes for ``module`` lowered with its XNNPACK partitioner
    (``to_edge_transform_and_lower``): what it supports runs in ``DelegateCall``s to
    ``XnnpackBackend`` whose payloads are XNNPACK graphs, the rest as kernel calls. Buffers the
    module mutates keep their initial value in the file, as in ``pte_bytes``."""
    exir = _executorch()
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    if not isinstance(module, torch.fx.GraphModule):  # PT2E's modules refuse .eval()
        module.eval()
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    program = torch.export.export(module, inputs)
    edge = exir.to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
    buffers = [name for name, _ in module.named_buffers()]
    config = exir.ExecutorchBackendConfig(passes=[InitializedMutableBufferPass(buffers)])
    data: bytes = edge.to_executorch(config).buffer
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
    """``forward`` of a .pte program loaded by ExecuTorch's own runtime, with its data file
    (.ptd) when ``data_path`` names one."""

    def __init__(self, pte: bytes, data_path: Path | None = None) -> None:
        _executorch()
        from executorch.runtime import Runtime

        # The method reads the program's bytes, which the Program object holds.
        self._program = Runtime.get().load_program(pte, data_path=data_path)
        self._method = self._program.load_method("forward")

    def run(self, *inputs: Any) -> tuple[Any, ...]:
        return tuple(self._method.execute(list(inputs)))


def quantized_module(
    module: torch.nn.Module,
    inputs: tuple[torch.Tensor, ...],
    calibration: list[tuple[torch.Tensor, ...]],
    dynamic: bool = False,
) -> torch.nn.Module:
    """``module`` quantized to int8 by PT2E with ExecuTorch's XNNPACKQuantizer (symmetric
    per-channel weights; activations static, calibrated on ``calibration``, or dynamic, with
    parameters chosen at run time), not delegated: the eager module that ExecuTorch's exporter
    then writes as quantized_decomposed:: (de)quantize operators around float ones."""
    _executorch()
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    config = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=dynamic)
    traced = torch.export.export(module.eval(), inputs).module()
    prepared = prepare_pt2e(traced, XNNPACKQuantizer().set_global(config))
    for sample in calibration:
        prepared(*sample)
    converted: torch.nn.Module = convert_pt2e(prepared)
    return converted


def load_quantized_kernels() -> None:
    """Registers ExecuTorch's quantized kernels with its own runtime (its Python runtime links
    only the portable and optimized ones) and, for its exporter, their out variants with torch."""
    import ctypes

    _executorch()
    import executorch
    import executorch.kernels.quantized  # noqa: F401
    from executorch.runtime import Runtime

    Runtime.get()  # loads libexecutorch.so, which the kernel library registers into
    package = Path(next(iter(executorch.__path__)))
    library = package / "lib" / "libexecutorch_kernels_quantized.so"
    ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)
