// Tiling of the paged attention decode kernel: a POD the host fills with paged_attention_tiling()
// (the attention) and paged_attention_combine_tiling() (v2's combination of partitions).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/attention_tiling.h"
#include "kernels/ascend/common/gm_rows.h"

namespace kiln::ascend {

// Phase kAttend: a unit of work is one (work item, kv head), a work item being a sequence's
// whole context or, when it is longer than `partition` tokens (vLLM's v2), one partition of it.
// The kv head's `group` query heads attend together, so each cached key and value row is read
// once for all of them; units go to the cores in runs of `block_units`, so the partitions of one
// long sequence spread over the cores; a unit walks its tokens `token_chunk` at a time. A whole
// context's result goes to out; a partition's to its records: per query head, its largest
// logit, its sum of exponentials (the record's first two floats of a 32-byte header) and its
// normalised result (head_size floats).
//
// Phase kCombine: a unit is one (partitioned sequence, query head), which combines its
// partitions' records into out (vLLM's paged_attention_v2_reduce_kernel).
//
// GM layout: query and out rows of head_size as `query` and `out` say (gm_rows.h; row
// s * heads + h is sequence s's head h: dense, or where a row view has it); the caches
// [num_blocks, block_size, kv_heads, head_size] (layout kFlash) or key_cache [num_blocks,
// kv_heads, head_size / x, block_size, x] and value_cache [num_blocks, kv_heads, head_size,
// block_size] (kPaged); block_tables int32 [seqs, max_blocks]; context_lens int32 [seqs];
// slopes float [heads] (zeros without alibi); work int32 [items, 3]: (sequence, partition,
// first record or -1 for a whole context) in kAttend, (sequence, partitions, first record) in
// kCombine; records float [records, heads, kRecordHeader + head_size].
struct PagedAttentionTiling {
  GmRows query;
  GmRows out;
  uint32_t dtype;  // DeviceDtype
  uint32_t block_dim;
  uint32_t phase;   // kAttend or kCombine
  uint32_t layout;  // kFlashLayout or kPagedLayout
  uint32_t seqs;
  uint32_t heads;
  uint32_t kv_heads;
  uint32_t group;      // heads / kv_heads
  uint32_t head_size;  // whole 32-byte blocks of the dtype
  uint32_t block_size;
  uint32_t x;  // kPagedLayout: elements in 16 bytes
  uint32_t max_blocks;
  uint32_t token_chunk;
  uint32_t partition;  // tokens of a partition
  uint32_t items;
  uint32_t units;  // kAttend: items x kv_heads; kCombine: items x heads
  uint32_t block_units;
  uint32_t has_alibi;
  float scale;
  uint32_t reserved;  // keeps the layout free of implicit padding (host and device agree)
};

constexpr uint32_t kAttend = 0;
constexpr uint32_t kCombine = 1;
constexpr uint32_t kFlashLayout = 0;
constexpr uint32_t kPagedLayout = 1;
// vLLM's PARTITION_SIZE for paged_attention_v2, as the portable kernel's.
constexpr uint32_t kPagedAttentionPartition = 512;
// Floats before a record's result: its maximum and sum, padded to a 32-byte block.
constexpr uint32_t kRecordHeader = 8;

// Query heads per kv head the kernel keeps running maxima and sums for.
constexpr uint32_t kPagedAttentionMaxGroup = kAttentionMaxRows;

// Pure: the kAttend tiling of `items` work items of sequences over caches of `layout`, or
// token_chunk == 0 when one token of `head_size` does not fit in UB next to the group's query,
// accumulator, result and record rows (and, for the paged layout, a block's key and value
// tiles).
PagedAttentionTiling paged_attention_tiling(DeviceDtype dtype, uint32_t layout, uint32_t seqs,
                                            uint32_t heads, uint32_t kv_heads, uint32_t head_size,
                                            uint32_t block_size, uint32_t max_blocks,
                                            uint32_t items, size_t ub_bytes, uint32_t cores);

// Pure: `attend`'s tiling for phase kCombine over `items` partitioned sequences.
PagedAttentionTiling paged_attention_combine_tiling(const PagedAttentionTiling& attend,
                                                    uint32_t items, uint32_t cores);

}  // namespace kiln::ascend
