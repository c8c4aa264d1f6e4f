"""The XNNPACK graph in a delegate's payload, decoded for selection: the payload is the 30-byte
header ("XH00" at bytes 4..8, then u16 header length, u32 graph offset, u32 graph size, u32
constant offset, u64 constant size, little-endian) followed by the graph FlatBuffer ("XN01",
runtime/executor/delegates/xnnpack/xnnpack_graph.fbs) and its constants, or, as older exporters
wrote, the graph alone. The same checks as the runtime's read_xnn_payload (xnnpack_payload.cpp);
the constants are not read."""

from __future__ import annotations

import struct
from typing import Any

from kiln.codegen.pte import xnnpack_graph_generated

xg: Any = xnnpack_graph_generated  # flatc's Python output carries no type hints

HEADER_MAGIC = b"XH00"
GRAPH_IDENTIFIER = b"XN01"
_HEADER_LENGTH = 30


class PayloadError(ValueError):
    """A payload that is not an XNNPACK graph; the message says what is wrong."""


def _graph_bytes(payload: bytes) -> bytes:
    if len(payload) < 8:
        raise PayloadError(f"the XNNPACK payload has {len(payload)} bytes, too few for a graph")
    if payload[4:8] != HEADER_MAGIC:
        return payload
    if len(payload) < _HEADER_LENGTH:
        raise PayloadError(f"the XNNPACK payload's header is cut short ({len(payload)} bytes)")
    length, graph_offset, graph_size, constant_offset = struct.unpack_from("<HIII", payload, 8)
    (constant_size,) = struct.unpack_from("<Q", payload, 22)
    if not _HEADER_LENGTH <= length <= len(payload):
        raise PayloadError(
            f"the XNNPACK payload's header length {length} is not in "
            f"[{_HEADER_LENGTH}, {len(payload)}]"
        )
    if (
        graph_offset < length
        or graph_offset + graph_size > len(payload)
        or constant_offset + constant_size > len(payload)
    ):
        raise PayloadError(
            f"the XNNPACK payload's header places the graph (offset {graph_offset}, {graph_size} "
            f"bytes) or the constants (offset {constant_offset}, {constant_size} bytes) outside "
            f"its {len(payload)} bytes"
        )
    return payload[graph_offset : graph_offset + graph_size]


def read_xnnpack_graph(payload: bytes) -> Any:
    """The graph (GraphT) of an XnnpackBackend payload; PayloadError when it is damaged."""
    graph = _graph_bytes(payload)
    if len(graph) < 8 or graph[4:8] != GRAPH_IDENTIFIER:
        raise PayloadError(
            f"the XNNPACK graph ({len(graph)} bytes) does not carry the identifier 'XN01': a "
            "corrupted payload, or not one ExecuTorch's XNNPACK partitioner wrote"
        )
    try:
        return xg.GraphT.InitFromObj(xg.Graph.GetRootAs(graph, 0))
    except Exception as error:  # struct.error, IndexError, ... from bad offsets
        raise PayloadError(
            f"the XNNPACK graph ({len(graph)} bytes) is malformed or truncated "
            f"({type(error).__name__}: {error})"
        ) from None
