// Tiling of llama::custom_sdpa's attention kernel: a POD the host fills with
// llama_attention_tiling().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/attention_tiling.h"

namespace kiln::ascend {

// A unit of work is (batch, block of `query_block` consecutive query rows, kv head): its query
// rows times the kv head's `group` query heads attend together, so each key and value row is
// read once for all of them. Units go to the cores in runs of `block_units`; a unit walks the
// longest context among its rows `token_chunk` tokens at a time.
//
// GM layout: query and out [batch, queries, heads, head_size]; key and value [batch, positions,
// kv_heads, head_size]; lengths int32 [queries]: query row i attends to positions
// [0, lengths[i]); mask float [queries, mask_pitch] when mask_pitch > 0, added to the logits.
struct LlamaAttentionTiling {
  uint32_t dtype;  // DeviceDtype
  uint32_t block_dim;
  uint32_t batch;
  uint32_t queries;
  uint32_t heads;
  uint32_t kv_heads;
  uint32_t group;      // heads / kv_heads
  uint32_t head_size;  // whole 32-byte blocks of the dtype
  uint32_t positions;
  uint32_t query_block;
  uint32_t row_blocks;  // query blocks per batch: queries / query_block, rounded up
  uint32_t units;       // batch x row_blocks x kv_heads
  uint32_t block_units;
  uint32_t token_chunk;  // a multiple of 8 with a mask (its rows are read in 32-byte blocks)
  uint32_t mask_pitch;   // positions rounded up to 8 floats; 0: no mask
  float scale;
};

// Pure: the tiling, or token_chunk == 0 when not even one query row's heads (group rows of
// head_size) fit in UB beside a chunk of one token (or of 8, with a mask).
LlamaAttentionTiling llama_attention_tiling(DeviceDtype dtype, uint32_t batch, uint32_t queries,
                                            uint32_t heads, uint32_t kv_heads, uint32_t head_size,
                                            uint32_t positions, bool masked, size_t ub_bytes,
                                            uint32_t cores);

}  // namespace kiln::ascend
