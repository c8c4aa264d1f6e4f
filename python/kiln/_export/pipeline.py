"""kiln.export's entry point: capture with torch.export, lower, plan, emit, serialize."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

import torch
from torch.export import ExportedProgram

from kiln._errors import ExportError
from kiln._export.data_file import serialize_data_file
from kiln._export.emitting import emit
from kiln._export.lowering import lower
from kiln._export.planning import plan_memory
from kiln._export.serialization import serialize


def _capture(
    module: torch.nn.Module | ExportedProgram, example_inputs: Any, dynamic_shapes: Any
) -> ExportedProgram:
    if isinstance(module, ExportedProgram):
        program = module
    elif isinstance(module, torch.nn.Module):
        inputs = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
        try:
            program = torch.export.export(module, inputs, dynamic_shapes=dynamic_shapes)
        except Exception as error:  # torch.export reports unsupported Python in many types
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise ExportError(
                f"torch.export cannot capture {type(module).__name__}: "
                f"{type(error).__name__}: {first}"
            ) from error
    else:
        raise ExportError(
            f"kiln.export takes a torch.nn.Module or a torch.export.ExportedProgram, not "
            f"{type(module).__name__}"
        )
    try:
        return cast(ExportedProgram, program.run_decompositions())
    except Exception as error:  # e.g. a custom out variant, which functionalization refuses
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise ExportError(
            f"torch.export cannot decompose the program: {type(error).__name__}: {first}"
        ) from error


def export(
    module: torch.nn.Module | ExportedProgram,
    example_inputs: Any = (),
    path: str | os.PathLike[str] | None = None,
    dynamic_shapes: Any = None,
    data_path: str | os.PathLike[str] | None = None,
) -> bytes:
    """Exports ``module`` called with ``example_inputs`` (a tuple of tensors) as a program.

    Returns the bytes of the ``.pte`` file and writes them to ``path`` when given. ``module`` may
    also be a program from ``torch.export.export``; ``example_inputs`` is then unused. Put the
    module in eval mode first if it behaves differently in training (dropout, batch norm).
    ``dynamic_shapes`` is torch.export's: dimensions given a ``torch.export.Dim`` (with a max)
    vary from run to run within their bounds.

    With ``data_path``, the program's constants (weights) are written to a data file there (a
    ``.ptd``, as ExecuTorch's ``external_constants`` export writes it), each under its parameter's
    name, and the program refers to them by name: load it with ``kiln.load(pte, data=...)``, or
    in ExecuTorch with the data file's path (``Runtime.load_program(pte, data_path=...)``).

    Raises ``kiln.ExportError`` naming the graph node and operator when the module uses something
    a program cannot express: an operator without an out variant or without a kernel in both Kiln
    and ExecuTorch's portable library (Kiln's own custom operators, ``kiln::rms_norm``, need only
    Kiln's), a dynamic dimension without a bound, control flow, non-tensor values between calls
    other than sizes."""
    program = _capture(module, example_inputs, dynamic_shapes)
    lowered = lower(program)
    emitted = emit(lowered, plan_memory(lowered), external=data_path is not None)
    data = serialize(emitted)
    if data_path is not None:
        Path(data_path).write_bytes(serialize_data_file(emitted.external))
    if path is not None:
        Path(path).write_bytes(data)
    return data
