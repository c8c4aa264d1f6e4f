"""Editing .ptd data files for the loader's negative tests.

decode() reads a file into the FlatBuffers object API (kiln/codegen/pte/data_file_generated.py)
and keeps its segment data; a test changes the objects; encode() packs them again with the header
and the segment data, as kiln.export writes a data file (kiln/_export/data_file.py). Header-level
damage is done on the encoded bytes: the header starts at byte 8 (HEADER).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from kiln._export.data_file import pack
from kiln.codegen.pte import data_file_generated

ptd: Any = data_file_generated

HEADER = 8  # the header's offset: after the root offset and the file identifier
# Offsets of the header's fields from HEADER.
MAGIC, LENGTH, FLATBUFFER_OFFSET, FLATBUFFER_SIZE, SEGMENT_BASE, SEGMENT_DATA_SIZE = (
    0,
    4,
    8,
    16,
    24,
    32,
)


@dataclass(frozen=True)
class PtdFile:
    """A decoded data file (edit ``table`` in place) and the bytes of its segments."""

    table: Any  # FlatTensorT
    segment_data: bytes

    def entry(self, key: str) -> Any:
        """The NamedDataT of ``key``."""
        return next(e for e in self.table.namedData if e.key.decode() == key)

    def segment(self, key: str) -> Any:
        """The DataSegmentT ``key``'s entry names."""
        return self.table.segments[self.entry(key).segmentIndex]


def decode(data: bytes) -> PtdFile:
    table = ptd.FlatTensorT.InitFromObj(ptd.FlatTensor.GetRootAs(data, 0))
    base, size = struct.unpack_from("<QQ", data, HEADER + SEGMENT_BASE)
    return PtdFile(table, data[base : base + size])


def encode(file: PtdFile) -> bytes:
    return bytes(pack(file.table, file.segment_data))


def with_header_field(data: bytes, field: int, value: int, width: int = 8) -> bytes:
    """``data`` with header field ``field`` (MAGIC, LENGTH, ...) set to ``value``."""
    out = bytearray(data)
    struct.pack_into("<Q" if width == 8 else "<I", out, HEADER + field, value)
    return bytes(out)
