// paged_attention_tiling: the units spread over the cores, then the longest chunk of tokens
// (attention_token_chunk) whose key and value rows fit in UB beside the kernel's own buffers.
#include "kernels/ascend/op_paged_attention/paged_attention_tiling.h"

namespace kiln::ascend {
namespace {

// `units` in runs of block_units over at most `cores` cores.
void spread(PagedAttentionTiling& t, uint32_t units, uint32_t cores) {
  t.units = units;
  const uint32_t blocks = units < cores ? units : cores;
  t.block_units = (units + blocks - 1) / (blocks == 0 ? 1 : blocks);
  t.block_dim = t.block_units == 0 ? 1 : (units + t.block_units - 1) / t.block_units;
}

}  // namespace

PagedAttentionTiling paged_attention_tiling(DeviceDtype dtype, uint32_t layout, uint32_t seqs,
                                            uint32_t heads, uint32_t kv_heads, uint32_t head_size,
                                            uint32_t block_size, uint32_t max_blocks,
                                            uint32_t items, size_t ub_bytes, uint32_t cores) {
  const size_t size = device_element_size(dtype);
  PagedAttentionTiling t{};
  t.query = {head_size, 1, 0};
  t.out = t.query;
  t.dtype = static_cast<uint32_t>(dtype);
  t.phase = kAttend;
  t.layout = layout;
  t.seqs = seqs;
  t.heads = heads;
  t.kv_heads = kv_heads;
  t.group = heads / kv_heads;
  t.head_size = head_size;
  t.block_size = block_size;
  t.x = static_cast<uint32_t>(16 / size);
  t.max_blocks = max_blocks;
  t.partition = kPagedAttentionPartition;
  t.items = items;
  spread(t, items * kv_heads, cores);
  // Beside OnlineAttention's buffers: the output tile of the group's rows in the dtype, their
  // records in float, and for the paged layout one block's key and value tiles.
  const uint64_t out_tile = uint64_t{t.group} * head_size * size;
  const uint64_t records = uint64_t{t.group} * (kRecordHeader + head_size) * sizeof(float);
  const uint64_t tiles = layout == kPagedLayout ? 2 * uint64_t{head_size} * block_size * size : 0;
  t.token_chunk =
      attention_token_chunk(t.group, head_size, size, out_tile + records + tiles, 0, ub_bytes, 1);
  return t;
}

PagedAttentionTiling paged_attention_combine_tiling(const PagedAttentionTiling& attend,
                                                    uint32_t items, uint32_t cores) {
  PagedAttentionTiling t = attend;
  t.phase = kCombine;
  t.items = items;
  spread(t, items * attend.heads, cores);
  return t;
}

}  // namespace kiln::ascend
