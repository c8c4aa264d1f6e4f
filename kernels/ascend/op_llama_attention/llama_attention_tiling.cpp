// llama_attention_tiling: query blocks short enough that the units occupy the cores, then the
// longest chunk of tokens that fits in UB beside the block's rows, halving the block while the
// chunk would be shorter than kMinChunk.
#include "kernels/ascend/op_llama_attention/llama_attention_tiling.h"

namespace kiln::ascend {
namespace {

// Below this many tokens per chunk, the per-chunk work (the DataCopy of the rows, the rescale)
// costs more than rereading key and value for a shorter query block.
constexpr uint32_t kMinChunk = 16;

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

}  // namespace

LlamaAttentionTiling llama_attention_tiling(DeviceDtype dtype, uint32_t batch, uint32_t queries,
                                            uint32_t heads, uint32_t kv_heads, uint32_t head_size,
                                            uint32_t positions, bool masked, size_t ub_bytes,
                                            uint32_t cores) {
  const size_t size = device_element_size(dtype);
  LlamaAttentionTiling t{};
  t.dtype = static_cast<uint32_t>(dtype);
  t.batch = batch;
  t.queries = queries;
  t.heads = heads;
  t.kv_heads = kv_heads;
  t.group = heads / kv_heads;
  t.head_size = head_size;
  t.positions = positions;
  t.mask_pitch = masked ? static_cast<uint32_t>(align_up(positions, 8)) : 0;
  t.block_dim = 1;
  if (t.group == 0 || t.group > kAttentionMaxRows || queries == 0) return t;
  // Enough query blocks per (batch, kv head) for every core to get a unit, as long as they fit.
  const uint32_t pairs = batch * kv_heads;
  const uint32_t wanted = pairs == 0 ? 1 : ceil_div(cores, pairs);
  uint32_t block = ceil_div(queries, wanted);
  const uint32_t most = kAttentionMaxRows / t.group;
  if (block > most) block = most;
  const uint32_t multiple = masked ? 8 : 1;
  const uint64_t per_token = masked ? sizeof(float) : 0;  // the mask row's chunk
  for (;;) {
    const uint32_t rows = block * t.group;
    // Beside OnlineAttention's buffers: the output tile of the block's rows, in the dtype.
    const uint64_t out_tile = uint64_t{rows} * head_size * size;
    t.token_chunk =
        attention_token_chunk(rows, head_size, size, out_tile, per_token, ub_bytes, multiple);
    if (t.token_chunk >= kMinChunk || block == 1) break;
    block = ceil_div(block, 2);
  }
  t.query_block = block;
  t.row_blocks = ceil_div(queries, block);
  t.units = batch * t.row_blocks * kv_heads;
  const uint32_t blocks = t.units < cores ? t.units : cores;
  t.block_units = blocks == 0 ? 1 : ceil_div(t.units, blocks);
  t.block_dim = t.units == 0 ? 1 : ceil_div(t.units, t.block_units);
  return t;
}

}  // namespace kiln::ascend
