// paged_attention_tiling: the (sequence, kv head) units spread over the cores, then the longest
// chunk of tokens (attention_token_chunk) whose key and value rows fit in UB.
#include "kernels/ascend/op_paged_attention/paged_attention_tiling.h"

namespace kiln::ascend {

PagedAttentionTiling paged_attention_tiling(DeviceDtype dtype, uint32_t seqs, uint32_t heads,
                                            uint32_t kv_heads, uint32_t head_size,
                                            uint32_t block_size, uint32_t max_blocks,
                                            size_t ub_bytes, uint32_t cores) {
  const size_t size = device_element_size(dtype);
  PagedAttentionTiling t{};
  t.dtype = static_cast<uint32_t>(dtype);
  t.seqs = seqs;
  t.heads = heads;
  t.kv_heads = kv_heads;
  t.group = heads / kv_heads;
  t.head_size = head_size;
  t.block_size = block_size;
  t.max_blocks = max_blocks;
  t.units = seqs * kv_heads;
  const uint32_t blocks = t.units < cores ? t.units : cores;
  t.block_units = (t.units + blocks - 1) / (blocks == 0 ? 1 : blocks);
  t.block_dim = t.block_units == 0 ? 1 : (t.units + t.block_units - 1) / t.block_units;
  // Beside OnlineAttention's buffers: the output tile of the group's rows, in the dtype.
  const uint64_t out_tile = uint64_t{t.group} * head_size * size;
  t.token_chunk = attention_token_chunk(t.group, head_size, size, out_tile, 0, ub_bytes, 1);
  return t;
}

}  // namespace kiln::ascend
