"""The delegate calls of a .pte program: for each DelegateCall instruction, the backend it names
and the bytes that backend is initialised with (the delegate's processed data), found where
``Program::delegate_payload`` (runtime/executor/program.cpp) finds them: inline in the program's
``backend_delegate_data``, or one of its data segments after the segment base. Every index and
range is checked; a bad one is a UserError naming the file and the instruction."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NoReturn

from kiln.codegen.errors import UserError
from kiln.codegen.pte import program_generated
from kiln.codegen.pte.header import PteFile

fb: Any = program_generated  # flatc's Python output carries no type hints

_CORRUPT = "the file is damaged or cut short; copy it again, or export the program again"
_DATA_FIELD = 4  # vtable offset of BackendDelegateInlineData.data, its first field


@dataclass(frozen=True)
class DelegatePayload:
    """One DelegateCall: the backend it names, where it is (for messages) and its payload."""

    backend: str
    where: str  # e.g. "plan 'forward', chain 0, instruction 3"
    data: bytes


def _fail(path: str, where: str, message: str) -> NoReturn:
    raise UserError(path, None, f"{where}: {message}", _CORRUPT)


def _delegate_calls(plan: Any) -> Iterator[tuple[str, Any]]:
    """(chain and instruction, DelegateCallT) for every delegate call, in order."""
    for c, chain in enumerate(plan.chains or []):
        instructions = (chain.instructions if chain is not None else None) or []
        for i, instruction in enumerate(instructions):
            if instruction is not None and isinstance(instruction.instrArgs, fb.DelegateCallT):
                yield f"chain {c}, instruction {i}", instruction.instrArgs


def _inline_data(program: Any, index: int) -> bytes:
    """The bytes of ``backend_delegate_data[index]``, sliced from the buffer (the object API
    would copy them into a list of ints)."""
    table = program.BackendDelegateData(index)._tab
    field = table.Offset(_DATA_FIELD)
    if field == 0:
        return b""
    start = table.Vector(field)
    return bytes(table.Bytes[start : start + table.VectorLen(field)])


def _payload(pte: PteFile, program: Any, where: str, reference: Any) -> bytes:
    if reference is None:
        _fail(pte.path, where, "the delegate has no payload reference")
    index = int(reference.index)
    if reference.location == fb.DataLocation.INLINE:
        count = program.BackendDelegateDataLength()
        if index >= count:
            _fail(pte.path, where, f"the payload is inline data {index} of {count}")
        return _inline_data(program, index)
    count = program.SegmentsLength()
    if index >= count:
        _fail(pte.path, where, f"the payload is segment {index} of {count}")
    segment = program.Segments(index)
    if pte.segment_base_offset is None:
        _fail(pte.path, where, "the payload is in a segment, but the file has no extended header")
    start = pte.segment_base_offset + segment.Offset()
    end = start + segment.Size()
    if end > len(pte.data):
        _fail(
            pte.path,
            where,
            f"the payload (segment {index}) ends at byte {end}, past the file's {len(pte.data)}",
        )
    return pte.data[start:end]


def delegate_payloads(
    pte: PteFile, program: Any, plan_name: str, plan: Any
) -> list[DelegatePayload]:
    """The delegate calls of one decoded execution plan (ExecutionPlanT) of ``program`` (the
    root table of ``pte``), each with its backend and payload."""
    delegates = plan.delegates or []
    found = []
    for position, call in _delegate_calls(plan):
        where = f"plan '{plan_name}', {position}"
        index = int(call.delegateIndex)
        if not 0 <= index < len(delegates) or delegates[index] is None:
            _fail(pte.path, where, f"DelegateCall names delegate {index} of {len(delegates)}")
        delegate = delegates[index]
        try:
            backend = bytes(delegate.id or b"").decode("utf-8")
        except UnicodeDecodeError:
            _fail(pte.path, where, "the delegate's id is not UTF-8 text")
        if not backend:
            _fail(pte.path, where, "the delegate has no id (backend name)")
        try:
            data = _payload(pte, program, where, delegate.processed)
        except UserError:
            raise
        except Exception as error:  # struct.error, IndexError, ... from bad offsets
            _fail(pte.path, where, f"malformed delegate data ({type(error).__name__}: {error})")
        found.append(DelegatePayload(backend, where, data))
    return found
