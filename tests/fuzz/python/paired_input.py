"""Fuzz inputs that hold a program and its data file (.ptd), as tests/fuzz/paired_input.h makes
them: "KILNPAIR", the program's size (u64, little-endian), the program, then the data file."""

from __future__ import annotations

PAIR_MAGIC = b"KILNPAIR"


def split_input(data: bytes) -> tuple[bytes, bytes | None]:
    """A fuzz input's program and data file (None when it has none)."""
    if len(data) < 16 or not data.startswith(PAIR_MAGIC):
        return data, None
    size = min(int.from_bytes(data[8:16], "little"), len(data) - 16)
    return data[16 : 16 + size], data[16 + size :]


def join_input(program: bytes, data: bytes) -> bytes:
    return PAIR_MAGIC + len(program).to_bytes(8, "little") + program + data
