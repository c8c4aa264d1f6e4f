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

import flatbuffers

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
