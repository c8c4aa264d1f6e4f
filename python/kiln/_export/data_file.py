"""The .ptd data file: a program's constants kept outside the .pte, each under its name.

Layout (ExecuTorch 1.5.x's "flat_tensor" format, runtime/executor/schema/data_file.fbs):

    [root offset u32]["FT01"][header, 48 bytes][rest of the flatbuffer]
    [zero padding to a multiple of 128][segment 0][padding to 128][segment 1]...

The header is ``"FH01"``, its length (u32 40), the flatbuffer offset (u64: the 48 bytes the
padded header adds), the flatbuffer's size without the header (u64), the segment base offset
(u64) and the size of all segment data (u64), little endian, then zeros to 48 bytes. Inserting
it after the first 8 bytes moves the rest of the flatbuffer by 48 bytes, a multiple of every
alignment in the schema, and the root offset grows by as much. Each named tensor's entry names
a segment and records the tensor's dtype, sizes and dim order, which ExecuTorch's runtime reads
and checks; identical data is stored once, its keys sharing a segment.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import flatbuffers

from kiln._export.planning import align
from kiln.codegen.pte import data_file_generated

ptd: Any = data_file_generated  # flatc's Python output carries no type hints

FILE_IDENTIFIER = b"FT01"
HEADER_MAGIC = b"FH01"
HEADER_LENGTH = 40
PADDED_HEADER_LENGTH = 48  # the header, zero-padded to 16 bytes
SEGMENT_ALIGNMENT = 128


@dataclass(frozen=True)
class NamedTensor:
    """A tensor of the data file: its key (the program tensor's fully qualified name), bytes,
    ExecuTorch scalar type code and sizes (contiguous)."""

    key: str
    data: bytes
    scalar_type: int
    sizes: tuple[int, ...]


def _layout(tensor: NamedTensor) -> Any:
    layout = ptd.TensorLayoutT()
    layout.scalarType = tensor.scalar_type
    layout.sizes = list(tensor.sizes)
    layout.dimOrder = list(range(len(tensor.sizes)))
    return layout


def serialize_data_file(tensors: list[NamedTensor]) -> bytes:
    """The .ptd file holding ``tensors`` (their keys unique)."""
    table = ptd.FlatTensorT()
    table.version = 0
    table.segments = []
    table.namedData = []
    segment_data = bytearray()
    segment_of: dict[bytes, int] = {}
    for tensor in tensors:
        index = segment_of.get(tensor.data)
        if index is None:
            segment_data += bytes(align(len(segment_data), SEGMENT_ALIGNMENT) - len(segment_data))
            segment = ptd.DataSegmentT()
            segment.offset = len(segment_data)
            segment.size = len(tensor.data)
            segment_data += tensor.data
            index = segment_of[tensor.data] = len(table.segments)
            table.segments.append(segment)
        entry = ptd.NamedDataT()
        entry.key = tensor.key
        entry.segmentIndex = index
        entry.tensorLayout = _layout(tensor)
        table.namedData.append(entry)
    return pack(table, bytes(segment_data))


def pack(table: Any, segment_data: bytes) -> bytes:
    """The file of ``table`` (a FlatTensorT whose segments already give their offsets into
    ``segment_data``) and ``segment_data``."""
    builder = flatbuffers.Builder(1024)
    builder.Finish(table.Pack(builder), file_identifier=FILE_IDENTIFIER)
    flatbuffer = bytes(builder.Output())
    segment_base = align(len(flatbuffer) + PADDED_HEADER_LENGTH, SEGMENT_ALIGNMENT)
    header = HEADER_MAGIC + struct.pack(
        "<IQQQQ",
        HEADER_LENGTH,
        PADDED_HEADER_LENGTH,
        len(flatbuffer),
        segment_base,
        len(segment_data),
    )
    header += bytes(PADDED_HEADER_LENGTH - len(header))
    (root_offset,) = struct.unpack_from("<I", flatbuffer, 0)
    out = bytearray(struct.pack("<I", root_offset + PADDED_HEADER_LENGTH))
    out += flatbuffer[4:8] + header + flatbuffer[8:]
    out += bytes(segment_base - len(out))
    out += segment_data
    return bytes(out)
