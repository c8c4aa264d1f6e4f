"""Findings about a program's delegate calls: a call to a backend Kiln does not run itself, and an
operator Kiln's XNNPACK delegate calls that the library lacks, which the runtime reports from
inside the delegate at load ("... needs the operator aten::convolution.out, which no backend of
the method has a kernel for ..."): the fix is the program's selection, which holds what the
delegate calls."""

from __future__ import annotations

import dataclasses

from kiln.codegen.diagnostics.diagnosis import Finding
from kiln.codegen.diagnostics.needs import DelegateNeed, Need

# What the runtime says at load (runtime/executor/plan_checks.cpp, xnnpack_builder.cpp).
_UNREGISTERED = "calls delegate '{backend}', which is not registered"
_DELEGATE_MISSING = "needs the operator {op}, which no backend of the method has a kernel for"


def unregistered_delegate(need: DelegateNeed) -> Finding:
    """A delegate call to ``need.backend``, which only a delegate the runner registers runs."""
    return Finding(
        need.backend,
        "unregistered_delegate",
        "missing",
        f"{need.where} calls delegate '{need.backend}': Kiln runs XnnpackBackend itself and no "
        "other backend, so loading the program fails with NotSupported ('... "
        f"{_UNREGISTERED.format(backend=need.backend)} ...') unless the runner registers one; "
        "the library's operators cannot stand in for it",
        (
            f'register a delegate for it before loading: kiln::register_delegate("{need.backend}"'
            ", my_delegate) (runtime/executor/delegate.h: init with the payload, execute with "
            "the arguments)",
            f"or export the program without partitioning it to {need.backend}: with no "
            "partitioner (its operators then run as kernel calls), or with ExecuTorch's "
            "XnnpackPartitioner, which Kiln runs",
        ),
        source=need.source,
    )


def _program_selection_fix(need: Need, library: str) -> str:
    program = need.program or "model.pte"
    return (
        "rebuild the library from the program's selection, which holds the operators (and "
        "dtypes) its XNNPACK delegate calls: CMake: kiln_add_operator_library(NAME "
        f"{library} MODEL {program} ...) or gen_selected_ops(LIB_NAME {library} MODEL {program}); "
        f"or python -m kiln.codegen.oplist --model {program} --output selected_operators.yaml"
    )


def in_delegate(finding: Finding, need: Need, library: str) -> Finding:
    """``finding`` for an operator that Kiln's delegate calls (``need.delegate``), saying what
    the runtime reports at load and offering the program's selection as the fix."""
    if finding.severity != "missing" or finding.cause not in ("not_selected", "missing_dtype"):
        return finding
    runtime = _DELEGATE_MISSING.format(op=finding.op)
    message = (
        f"{finding.message}; Kiln's {need.delegate} calls it, so loading the program fails "
        f"with OperatorMissing ('... {runtime} ...')"
    )
    fix = (_program_selection_fix(need, library), *finding.fix)
    return dataclasses.replace(finding, message=message, fix=fix)
