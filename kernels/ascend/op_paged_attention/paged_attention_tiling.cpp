// paged_attention_tiling: the (sequence, kv head) units spread over the cores, then the longest
// chunk of tokens (up to kMaxChunk) whose float key and value rows fit in UB.
#include "kernels/ascend/op_paged_attention/paged_attention_tiling.h"

#include "kernels/ascend/common/row_split.h"

namespace kiln::ascend {
namespace {

// As the portable kernel: the logits of this many tokens share one rescale of the sums.
constexpr uint32_t kMaxChunk = 64;
constexpr size_t kSlack = 16 * 32;

}  // namespace

PagedAttentionTiling paged_attention_tiling(DeviceDtype dtype, uint32_t seqs, uint32_t heads,
                                            uint32_t kv_heads, uint32_t head_size,
                                            uint32_t block_size, uint32_t max_blocks,
                                            size_t ub_bytes, uint32_t cores) {
  const size_t size = device_element_size(dtype);
  const bool wide = size != sizeof(float);
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
  // The group's rows: query and accumulator in float, the query's staging and the output tile
  // in the dtype; two float rows of scratch, the reduction's work and the logits.
  const size_t rows = size_t{t.group} * head_size;
  const size_t fixed = rows * (2 * sizeof(float) + (wide ? size : 0) + size) +
                       2 * head_size * sizeof(float) + reduce_work_bytes(kFloatRepeat) +
                       size_t{t.group} * kMaxChunk * sizeof(float) + kSlack;
  // Per token of a chunk: key and value rows in float, plus their staging in the dtype.
  const size_t per_token = 2 * head_size * (sizeof(float) + (wide ? size : 0));
  uint64_t chunk = fixed < ub_bytes ? (ub_bytes - fixed) / per_token : 0;
  if (chunk > kMaxChunk) chunk = kMaxChunk;
  t.token_chunk = static_cast<uint32_t>(chunk);
  t.logit_pitch = static_cast<uint32_t>(align_up(chunk, 8));
  return t;
}

}  // namespace kiln::ascend
