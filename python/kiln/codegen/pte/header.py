"""The framing of a .pte file: the FlatBuffers file identifier "ET12" at bytes 4..8 and, when
present, ExecuTorch's extended header at byte 8, which says how long the flatbuffer is and where
the data segments (constants, delegate blobs) after it start.

Extended header, little-endian: ``b"eh00"``, u32 header length (from the magic on; 24 in older
files, 32 since the segment data size was added), u64 program size (bytes 0.. of the flatbuffer),
u64 segment base offset, u64 segment data size. Files without segments may have no extended
header; the whole file is then the flatbuffer.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from kiln.codegen.errors import UserError

FILE_IDENTIFIER = b"ET12"
EXTENDED_HEADER_MAGIC = b"eh00"
_HEADER_START = 8
_SHORTEST_HEADER = 24  # magic, length, program size, segment base offset
_WITH_SEGMENT_SIZE = 32  # ... and the segment data size
_REEXPORT = "export the program again (executorch's to_executorch().buffer, or kiln.export)"


def has_identifier(data: bytes) -> bool:
    """Whether ``data`` (a file's first bytes) carries the .pte file identifier."""
    return data[4:8] == FILE_IDENTIFIER


def file_has_identifier(path: str) -> bool:
    """Whether the file at ``path`` starts like a .pte program; False when it cannot be read."""
    try:
        with open(path, "rb") as stream:
            return has_identifier(stream.read(8))
    except OSError:
        return False


@dataclass(frozen=True)
class PteFile:
    """A .pte file's bytes split by its header; ``flatbuffer`` excludes the segment data, so a
    read past the program's end fails instead of reading segment bytes."""

    path: str
    flatbuffer: bytes
    file_size: int
    segment_base_offset: int | None  # None: no extended header
    segment_data_size: int | None  # None: not recorded (or no extended header)
    data: bytes = b""  # the whole file, segments included (delegate payloads live there)

    def check_segments(self, ends: list[int]) -> None:
        """Checks that the data segments ending at ``ends`` (relative to the segment base) lie in
        the file."""
        if not ends:
            return
        if self.segment_base_offset is None:
            raise UserError(
                self.path,
                None,
                f"the program has {len(ends)} data segment(s) but no extended header saying "
                "where they start",
                _REEXPORT,
            )
        end = self.segment_base_offset + max(ends)
        if end > self.file_size:
            raise UserError(
                self.path,
                None,
                f"truncated: its data segments end at byte {end}, but the file has "
                f"{self.file_size} bytes",
                "copy the whole file again, or " + _REEXPORT,
            )


def _u32(data: bytes, at: int) -> int:
    value: int = struct.unpack_from("<I", data, at)[0]
    return value


def _u64(data: bytes, at: int) -> int:
    value: int = struct.unpack_from("<Q", data, at)[0]
    return value


def _check_identifier(path: str, data: bytes) -> None:
    if len(data) < 8:
        raise UserError(
            path,
            None,
            f"not a .pte program: it has {len(data)} bytes, fewer than a .pte file's 8-byte "
            "start (root offset and file identifier 'ET12')",
            _REEXPORT,
        )
    found = data[4:8]
    if found == FILE_IDENTIFIER:
        return
    if found[:2] == b"ET" and found[2:].isdigit():
        raise UserError(
            path,
            None,
            f"a .pte program of another format version: file identifier '{found.decode()}', "
            "where Kiln reads 'ET12' (executorch 1.x)",
            "export it again with executorch 1.x",
        )
    raise UserError(
        path,
        None,
        f"not a .pte program: bytes 4..8 are {found!r}, where a .pte file has its file "
        "identifier 'ET12'",
        "pass a program written by executorch's to_executorch().buffer or kiln.export "
        "(or a torch.export.save program, which is not named .pte)",
    )


def _extended_header(path: str, data: bytes) -> tuple[int, int | None, int | None]:
    """(program size, segment base offset, segment data size) from the extended header."""
    if data[_HEADER_START : _HEADER_START + 4] != EXTENDED_HEADER_MAGIC:
        return len(data), None, None
    if len(data) < _HEADER_START + 8:
        raise UserError(path, None, "truncated inside its extended header", _REEXPORT)
    length = _u32(data, _HEADER_START + 4)
    if length < _SHORTEST_HEADER:
        raise UserError(
            path,
            None,
            f"malformed extended header: its length is {length} bytes, less than the "
            f"{_SHORTEST_HEADER} its fields take",
            _REEXPORT,
        )
    if len(data) < _HEADER_START + length:
        raise UserError(
            path,
            None,
            f"truncated inside its extended header ({len(data)} bytes, the header ends at "
            f"byte {_HEADER_START + length})",
            _REEXPORT,
        )
    program_size = _u64(data, _HEADER_START + 8)
    base = _u64(data, _HEADER_START + 16)
    segment_size = _u64(data, _HEADER_START + 24) if length >= _WITH_SEGMENT_SIZE else None
    if program_size < _HEADER_START + length:
        raise UserError(
            path,
            None,
            f"malformed extended header: program size {program_size} is smaller than the "
            "header itself",
            _REEXPORT,
        )
    if program_size > len(data):
        raise UserError(
            path,
            None,
            f"truncated: its header says the program is {program_size} bytes, but the file "
            f"has {len(data)}",
            "copy the whole file again, or " + _REEXPORT,
        )
    if segment_size is not None and segment_size > 0:
        if base < program_size:
            raise UserError(
                path,
                None,
                f"malformed extended header: segments start at byte {base}, inside the "
                f"program (which ends at byte {program_size})",
                _REEXPORT,
            )
        if base + segment_size > len(data):
            raise UserError(
                path,
                None,
                f"truncated: its header says the segment data ends at byte "
                f"{base + segment_size}, but the file has {len(data)} bytes",
                "copy the whole file again, or " + _REEXPORT,
            )
    return program_size, base, segment_size


def split_pte(path: str, data: bytes) -> PteFile:
    """Checks the identifier and the extended header of ``data``, read from ``path``."""
    _check_identifier(path, data)
    program_size, base, segment_size = _extended_header(path, data)
    root = _u32(data, 0)
    if root + 4 > program_size:  # the root table's vtable offset must be inside the program
        raise UserError(
            path,
            None,
            f"malformed or truncated: the root table offset {root} is past the program's "
            f"{program_size} bytes",
            _REEXPORT,
        )
    return PteFile(path, data[:program_size], len(data), base, segment_size, data)


def read_pte_file(path: str) -> PteFile:
    """Reads and splits the .pte file at ``path``; a missing or unreadable file is a UserError."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except FileNotFoundError:
        raise UserError(path, None, "no such file", "check the path") from None
    except OSError as error:
        raise UserError(
            path, None, f"cannot read it ({error.strerror or error})", "check the path"
        ) from None
    return split_pte(path, data)
