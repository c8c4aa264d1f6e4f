// Tiling of the paged attention decode kernel: a POD the host fills with paged_attention_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/attention_tiling.h"

namespace kiln::ascend {

// A unit of work is one (sequence, kv head): its `group` query heads attend together, so each
// cached key and value row is read once for all of them. Units go to the cores in runs of
// `block_units`; a unit walks its context `token_chunk` tokens at a time.
//
// GM layout: query and out [seqs, heads, head_size]; the caches [num_blocks, block_size,
// kv_heads, head_size]; block_tables int32 [seqs, max_blocks]; context_lens int32 [seqs];
// slopes float [heads] (zeros without alibi).
struct PagedAttentionTiling {
  uint32_t dtype;  // DeviceDtype
  uint32_t block_dim;
  uint32_t seqs;
  uint32_t heads;
  uint32_t kv_heads;
  uint32_t group;      // heads / kv_heads
  uint32_t head_size;  // whole 32-byte blocks of the dtype
  uint32_t block_size;
  uint32_t max_blocks;
  uint32_t token_chunk;
  uint32_t units;  // seqs x kv_heads
  uint32_t block_units;
  uint32_t has_alibi;
  float scale;
  uint32_t reserved;
};

// Query heads per kv head the kernel keeps running maxima and sums for.
constexpr uint32_t kPagedAttentionMaxGroup = kAttentionMaxRows;

// Pure: the tiling, or token_chunk == 0 when one token of `head_size` does not fit in UB next
// to the group's query and accumulator rows.
PagedAttentionTiling paged_attention_tiling(DeviceDtype dtype, uint32_t seqs, uint32_t heads,
                                            uint32_t kv_heads, uint32_t head_size,
                                            uint32_t block_size, uint32_t max_blocks,
                                            size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
