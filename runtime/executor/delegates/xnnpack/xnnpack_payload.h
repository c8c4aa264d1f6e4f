// The payload ExecuTorch's XNNPACK partitioner writes for a delegate: an optional header, the
// graph FlatBuffer (xnnpack_graph.fbs) and a constant section, checked before any use.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/executor/program.h"

namespace kiln {

namespace xnn_format {
struct Graph;
}

struct XnnPayload {
  const xnn_format::Graph* graph;  // verified by the FlatBuffers verifier
  ConstantSpan constants;          // the constant section (may be empty)
};

// Reads `payload`: the 30-byte header ("XH00" at bytes 4..8, then its length, the graph's
// offset and size and the constant section's offset and size, little-endian) or, as older
// exporters wrote, the graph alone (identifier "XN01" at bytes 4..8). InvalidProgram naming
// `where` and what is wrong.
Result<XnnPayload> read_xnn_payload(ConstantSpan payload, const char* where);

}  // namespace kiln
