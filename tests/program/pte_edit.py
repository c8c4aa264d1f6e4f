"""Editing .pte programs for the loader's negative tests.

decode() reads a file into the FlatBuffers object API (kiln/codegen/pte/program_generated.py) and
keeps its segment data; a test changes the objects; encode() packs them again and re-attaches
ExecuTorch's extended header and the segment data. The header sits right after the root offset
and file identifier:

    "eh00", u32 header length (32), u64 program size (flatbuffer + header),
    u64 segment base offset (where segment data starts), u64 segment data size

Inserting it moves the rest of the flatbuffer by 32 bytes (a multiple of every alignment in the
schema), so the root offset grows by 32. Segment data starts at the next multiple of 128.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import flatbuffers

from kiln.codegen.pte import program_generated as pte
from kiln.codegen.pte.program_generated import ExecutionPlanT, Program, ProgramT

FILE_IDENTIFIER = b"ET12"
HEADER_MAGIC = b"eh00"
HEADER_LENGTH = 32
SEGMENT_ALIGNMENT = 128


@dataclass(frozen=True)
class Header:
    """The extended header's fields."""

    program_size: int
    segment_base: int
    segment_data_size: int

    @staticmethod
    def of(data: bytes) -> Header | None:
        if len(data) < 8 + HEADER_LENGTH or data[8:12] != HEADER_MAGIC:
            return None
        _, program_size, segment_base, segment_size = struct.unpack_from("<IQQQ", data, 12)
        return Header(program_size, segment_base, segment_size)


@dataclass(frozen=True)
class PteFile:
    """A decoded program (edit it in place) and the bytes of its segments."""

    program: ProgramT
    segment_data: bytes

    @property
    def plan(self) -> ExecutionPlanT:
        """The first (in these tests, the only) method."""
        plan: ExecutionPlanT = self.program.executionPlan[0]
        return plan


def decode(data: bytes) -> PteFile:
    program = ProgramT.InitFromObj(Program.GetRootAs(data, 0))
    header = Header.of(data)
    segments = b""
    if header is not None and header.segment_base > 0:
        segments = data[header.segment_base : header.segment_base + header.segment_data_size]
    return PteFile(program, segments)


def encode(pte: PteFile) -> bytes:
    builder = flatbuffers.Builder(4096)
    builder.Finish(pte.program.Pack(builder), file_identifier=FILE_IDENTIFIER)
    flatbuffer = bytes(builder.Output())
    if not pte.segment_data:
        return flatbuffer  # as ExecuTorch writes a program without segment data: no header
    program_size = len(flatbuffer) + HEADER_LENGTH
    segment_base = -(-program_size // SEGMENT_ALIGNMENT) * SEGMENT_ALIGNMENT
    (root_offset,) = struct.unpack_from("<I", flatbuffer, 0)
    header = HEADER_MAGIC + struct.pack(
        "<IQQQ", HEADER_LENGTH, program_size, segment_base, len(pte.segment_data)
    )
    out = struct.pack("<I", root_offset + HEADER_LENGTH) + flatbuffer[4:8] + header
    out += flatbuffer[8:]
    return out + bytes(segment_base - len(out)) + pte.segment_data


def _vector(builder: flatbuffers.Builder, start: Any, items: list[Any], prepend: Any) -> int:
    """A FlatBuffers vector of `items` (scalars, or offsets of tables built before)."""
    start(builder, len(items))
    for item in reversed(items):
        prepend(item)
    return int(builder.EndVector())


def _planned_tensor(builder: flatbuffers.Builder, offset: int) -> int:
    """An EValue: a float tensor of 4 elements at `offset` of memory arena 1."""
    sizes = _vector(builder, pte.TensorStartSizesVector, [4], builder.PrependInt32)
    dim_order = _vector(builder, pte.TensorStartDimOrderVector, [0], builder.PrependUint8)
    pte.AllocationDetailsStart(builder)
    pte.AllocationDetailsAddMemoryId(builder, 1)
    pte.AllocationDetailsAddMemoryOffsetLow(builder, offset)
    allocation = pte.AllocationDetailsEnd(builder)
    pte.TensorStart(builder)
    pte.TensorAddScalarType(builder, pte.ScalarType.FLOAT)
    pte.TensorAddSizes(builder, sizes)
    pte.TensorAddDimOrder(builder, dim_order)
    pte.TensorAddAllocationInfo(builder, allocation)
    tensor = pte.TensorEnd(builder)
    pte.EValueStart(builder)
    pte.EValueAddValType(builder, pte.KernelTypes.Tensor)
    pte.EValueAddVal(builder, tensor)
    return int(pte.EValueEnd(builder))


def shared_tables_program(lists: int, items: int, calls: int, inputs: int = 0) -> bytes:
    """A small program whose tables are shared, as FlatBuffers allows: values 2..lists+1 are one
    TensorList table of `items` items (each value 1), `calls` instructions are one KernelCall
    table passing value 0 and every list, and the method has `inputs` inputs, each value 0.
    Checked naively, its load examines calls x lists x items tensors, and compares each input
    with every value, while the file holds each table once."""
    builder = flatbuffers.Builder(1024)
    item_vector = _vector(
        builder, pte.TensorListStartItemsVector, [1] * items, builder.PrependInt32
    )
    pte.TensorListStart(builder)
    pte.TensorListAddItems(builder, item_vector)
    tensor_list = pte.TensorListEnd(builder)
    pte.EValueStart(builder)
    pte.EValueAddValType(builder, pte.KernelTypes.TensorList)
    pte.EValueAddVal(builder, tensor_list)
    shared_list = pte.EValueEnd(builder)
    values_list = [_planned_tensor(builder, 0), _planned_tensor(builder, 16)]
    values_list += [shared_list] * lists
    values = _vector(
        builder, pte.ExecutionPlanStartValuesVector, values_list, builder.PrependUOffsetTRelative
    )
    args = _vector(
        builder, pte.KernelCallStartArgsVector, [0, *range(2, lists + 2)], builder.PrependInt32
    )
    pte.KernelCallStart(builder)
    pte.KernelCallAddOpIndex(builder, 0)
    pte.KernelCallAddArgs(builder, args)
    call = pte.KernelCallEnd(builder)
    pte.InstructionStart(builder)
    pte.InstructionAddInstrArgsType(builder, pte.InstructionArguments.KernelCall)
    pte.InstructionAddInstrArgs(builder, call)
    instruction = pte.InstructionEnd(builder)
    instructions = _vector(
        builder,
        pte.ChainStartInstructionsVector,
        [instruction] * calls,
        builder.PrependUOffsetTRelative,
    )
    pte.ChainStart(builder)
    pte.ChainAddInstructions(builder, instructions)
    chain = pte.ChainEnd(builder)
    chains = _vector(
        builder, pte.ExecutionPlanStartChainsVector, [chain], builder.PrependUOffsetTRelative
    )
    name, overload = builder.CreateString("aten::cat"), builder.CreateString("out")
    pte.OperatorStart(builder)
    pte.OperatorAddName(builder, name)
    pte.OperatorAddOverload(builder, overload)
    operator = pte.OperatorEnd(builder)
    operators = _vector(
        builder, pte.ExecutionPlanStartOperatorsVector, [operator], builder.PrependUOffsetTRelative
    )
    sizes = _vector(
        builder, pte.ExecutionPlanStartNonConstBufferSizesVector, [0, 64], builder.PrependInt64
    )
    input_vector = _vector(
        builder, pte.ExecutionPlanStartInputsVector, [0] * inputs, builder.PrependInt32
    )
    method = builder.CreateString("forward")
    pte.ExecutionPlanStart(builder)
    pte.ExecutionPlanAddName(builder, method)
    pte.ExecutionPlanAddValues(builder, values)
    pte.ExecutionPlanAddInputs(builder, input_vector)
    pte.ExecutionPlanAddChains(builder, chains)
    pte.ExecutionPlanAddOperators(builder, operators)
    pte.ExecutionPlanAddNonConstBufferSizes(builder, sizes)
    plan = pte.ExecutionPlanEnd(builder)
    plans = _vector(
        builder, pte.ProgramStartExecutionPlanVector, [plan], builder.PrependUOffsetTRelative
    )
    pte.ProgramStart(builder)
    pte.ProgramAddExecutionPlan(builder, plans)
    builder.Finish(pte.ProgramEnd(builder), file_identifier=FILE_IDENTIFIER)
    return bytes(builder.Output())
