// The UB that OnlineAttention (online_attention.h) takes, and the longest chunk of tokens that
// fits beside it: shared by the tilings of Kiln's Ascend attention kernels (paged_attention,
// llama custom_sdpa) and by the kernel that lays the buffers out. Pure, for host and device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/row_split.h"
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// Query rows OnlineAttention keeps running maxima and sums for.
constexpr uint32_t kAttentionMaxRows = 64;
// As the portable kernels (attention.h): the logits of this many tokens share one rescale.
constexpr uint32_t kAttentionMaxChunk = 64;

// Elements of the 16-bit staging buffer: `rows` query rows, or a chunk's key and value rows.
constexpr uint64_t attention_stage_elems(uint32_t rows, uint32_t d, uint32_t chunk) {
  return (2 * uint64_t{chunk} > rows ? 2 * uint64_t{chunk} : uint64_t{rows}) * d;
}

// Bytes of OnlineAttention's buffers for `rows` query rows of `d` elements (whole 32-byte
// blocks of a `size`-byte dtype) and chunks of `chunk` tokens: query rows and accumulators in
// float, a chunk's key and value rows in float (and their 16-bit staging), two float rows of
// products, the reduction's work and one row of logits.
constexpr uint64_t online_attention_ub_bytes(uint32_t rows, uint32_t d, uint32_t chunk,
                                             size_t size) {
  const uint64_t floats = 2 * uint64_t{rows} * d + 2 * uint64_t{chunk} * d + 2 * uint64_t{d} +
                          align_up(chunk, elements_per_block(sizeof(float)));
  const uint64_t stage = size == sizeof(float) ? 0 : attention_stage_elems(rows, d, chunk) * size;
  return floats * sizeof(float) + stage + reduce_work_bytes(kFloatRepeat);
}

// The longest chunk of tokens, up to kAttentionMaxChunk and a multiple of `multiple`, for which
// OnlineAttention plus the kernel's own buffers (`fixed` bytes and `per_token` bytes per token
// of a chunk) fit in `ub_bytes`; 0 when no chunk does.
constexpr uint32_t attention_token_chunk(uint32_t rows, uint32_t d, size_t size, uint64_t fixed,
                                         uint64_t per_token, size_t ub_bytes, uint32_t multiple) {
  // Each InitBuffer rounds up to 32 bytes: room for the rounding of a dozen buffers.
  constexpr uint64_t kSlack = 16 * 32;
  for (uint32_t chunk = kAttentionMaxChunk / multiple * multiple; chunk > 0; chunk -= multiple) {
    const uint64_t bytes =
        online_attention_ub_bytes(rows, d, chunk, size) + fixed + per_token * chunk + kSlack;
    if (bytes <= ub_bytes) return chunk;
  }
  return 0;
}

}  // namespace kiln::ascend
