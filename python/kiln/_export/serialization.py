"""The .pte file: the program flatbuffer, ExecuTorch's extended header, then the data segments.

Layout (as ExecuTorch 1.5.x reads it):

    [root offset u32]["ET12"][extended header, 32 bytes][rest of the flatbuffer]
    [zero padding to a multiple of 128][segment 0][padding to 128][segment 1]...

The extended header is ``"eh00"``, its length (u32 32), the program size (the flatbuffer plus the
header, u64), the segment base offset (u64) and the size of all segment data (u64), little
endian. Inserting it after the first 8 bytes moves the rest of the flatbuffer by 32 bytes, a
multiple of every alignment in the schema, and the root offset grows by as much. Segment 0 holds
the constants; segment 1, when there are mutable buffers, their initial values. Inside a segment
each tensor starts at a multiple of 16, and entry 0 of its offset table is reserved for "no data".
A program without any segment data has no header, as ExecuTorch writes it.
"""

from __future__ import annotations

import struct

import flatbuffers

from kiln._export.emitting import EmittedProgram
from kiln._export.planning import TENSOR_ALIGNMENT, align
from kiln._export.schema import pte

FILE_IDENTIFIER = b"ET12"
HEADER_MAGIC = b"eh00"
HEADER_LENGTH = 32
SEGMENT_ALIGNMENT = 128


def _pad(data: bytearray, alignment: int) -> None:
    data += bytes(align(len(data), alignment) - len(data))


def _subsegments(blobs: list[bytes]) -> tuple[bytes, list[int]]:
    """``blobs`` packed into one segment, each aligned; the offsets, entry 0 the empty one."""
    data = bytearray()
    offsets = [0]
    for blob in blobs:
        _pad(data, TENSOR_ALIGNMENT)
        offsets.append(len(data))
        data += blob
    return bytes(data), offsets


def _subsegment_table(segment_index: int, offsets: list[int]) -> object:
    table = pte.SubsegmentOffsetsT()
    table.segmentIndex = segment_index
    table.offsets = offsets
    return table


def serialize(emitted: EmittedProgram) -> bytes:
    program = emitted.program
    segments: list[bytes] = []
    constant_data, constant_offsets = _subsegments(emitted.constants)
    program.constantSegment = _subsegment_table(len(segments), constant_offsets)
    segments.append(constant_data)
    program.mutableDataSegments = None  # absent unless there are buffers, as ExecuTorch writes
    if emitted.mutable:
        mutable_data, mutable_offsets = _subsegments(emitted.mutable)
        program.mutableDataSegments = [_subsegment_table(len(segments), mutable_offsets)]
        segments.append(mutable_data)

    segment_data = bytearray()
    program.segments = []
    for data in segments:
        _pad(segment_data, SEGMENT_ALIGNMENT)
        entry = pte.DataSegmentT()
        entry.offset = len(segment_data)
        entry.size = len(data)
        program.segments.append(entry)
        segment_data += data

    builder = flatbuffers.Builder(4096)
    builder.Finish(program.Pack(builder), file_identifier=FILE_IDENTIFIER)
    flatbuffer = bytes(builder.Output())
    if not segment_data:
        return flatbuffer

    program_size = len(flatbuffer) + HEADER_LENGTH
    segment_base = align(program_size, SEGMENT_ALIGNMENT)
    header = HEADER_MAGIC + struct.pack(
        "<IQQQ", HEADER_LENGTH, program_size, segment_base, len(segment_data)
    )
    (root_offset,) = struct.unpack_from("<I", flatbuffer, 0)
    out = bytearray(struct.pack("<I", root_offset + HEADER_LENGTH))
    out += flatbuffer[4:8] + header + flatbuffer[8:]
    _pad(out, SEGMENT_ALIGNMENT)
    out += segment_data
    return bytes(out)
