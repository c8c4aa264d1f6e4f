#include "runtime/executor/delegates/xnnpack/xnnpack_payload.h"

#include <cstring>

#include "runtime/executor/delegates/xnnpack/xnnpack_graph_generated.h"
#include "runtime/platform/last_error.h"

namespace kiln {

namespace {

constexpr char kHeaderMagic[4] = {'X', 'H', '0', '0'};
constexpr size_t kMagicOffset = 4;
constexpr size_t kHeaderMinLength = 30;  // up to the constant section's 8-byte size

uint64_t read_le(const uint8_t* bytes, size_t count) {
  uint64_t value = 0;
  for (size_t i = 0; i < count; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return value;
}

bool inside(uint64_t offset, uint64_t size, uint64_t total) {
  return offset <= total && size <= total - offset;
}

}  // namespace

Result<XnnPayload> read_xnn_payload(ConstantSpan payload, const char* where) {
  const uint8_t* bytes = payload.data;
  if (bytes == nullptr || payload.size < kMagicOffset + sizeof(kHeaderMagic)) {
    KILN_SET_ERROR("%s: the XNNPACK payload has %zu bytes, too few for a graph", where,
                   payload.size);
    return Error::InvalidProgram;
  }
  ConstantSpan graph = payload;
  ConstantSpan constants{nullptr, 0};
  if (std::memcmp(bytes + kMagicOffset, kHeaderMagic, sizeof(kHeaderMagic)) == 0) {
    if (payload.size < kHeaderMinLength) {
      KILN_SET_ERROR("%s: the XNNPACK payload's header is cut short (%zu bytes)", where,
                     payload.size);
      return Error::InvalidProgram;
    }
    const uint64_t length = read_le(bytes + 8, 2);
    const uint64_t graph_offset = read_le(bytes + 10, 4), graph_size = read_le(bytes + 14, 4);
    const uint64_t constant_offset = read_le(bytes + 18, 4);
    const uint64_t constant_size = read_le(bytes + 22, 8);
    if (length < kHeaderMinLength || length > payload.size) {
      KILN_SET_ERROR("%s: the XNNPACK payload's header length %llu is not in [%zu, %zu]", where,
                     static_cast<unsigned long long>(length), kHeaderMinLength, payload.size);
      return Error::InvalidProgram;
    }
    if (!inside(graph_offset, graph_size, payload.size) || graph_offset < length ||
        !inside(constant_offset, constant_size, payload.size)) {
      KILN_SET_ERROR(
          "%s: the XNNPACK payload's header places the graph (offset %llu, %llu bytes) or the "
          "constants (offset %llu, %llu bytes) outside its %zu bytes",
          where, static_cast<unsigned long long>(graph_offset),
          static_cast<unsigned long long>(graph_size),
          static_cast<unsigned long long>(constant_offset),
          static_cast<unsigned long long>(constant_size), payload.size);
      return Error::InvalidProgram;
    }
    graph = {bytes + graph_offset, static_cast<size_t>(graph_size)};
    constants = {bytes + constant_offset, static_cast<size_t>(constant_size)};
  }
  // FlatBuffers reads 8-byte scalars in place; it checks their alignment relative to the buffer.
  if (reinterpret_cast<uintptr_t>(graph.data) % alignof(uint64_t) != 0) {
    KILN_SET_ERROR("%s: the XNNPACK graph does not start at an 8-byte aligned address", where);
    return Error::InvalidProgram;
  }
  flatbuffers::Verifier verifier(graph.data, graph.size);
  if (graph.size < kMagicOffset + 4 || !xnn_format::GraphBufferHasIdentifier(graph.data) ||
      !xnn_format::VerifyGraphBuffer(verifier)) {
    KILN_SET_ERROR(
        "%s: the FlatBuffers verifier rejects the XNNPACK graph (%zu bytes): a corrupted "
        "payload, or not one ExecuTorch's XNNPACK partitioner wrote",
        where, graph.size);
    return Error::InvalidProgram;
  }
  return XnnPayload{xnn_format::GetGraph(graph.data), constants};
}

}  // namespace kiln
