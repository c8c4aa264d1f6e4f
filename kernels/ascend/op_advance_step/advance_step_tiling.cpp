// Tiling of advance_step_flashattn (advance_step_tiling.h).
#include "kernels/ascend/op_advance_step/advance_step_tiling.h"

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

AdvanceStepTiling advance_step_tiling(uint64_t num_seqs, uint64_t num_queries, int64_t block_size,
                                      uint64_t max_blocks, size_t ub_bytes, uint32_t cores) {
  // UB per sequence: the length and the sampled token in, token, position, length and slot out.
  constexpr uint64_t kBytesPerSeq = 4 + 8 + 8 + 8 + 4 + 8;
  // A core gets at least this many sequences: the work per sequence is a few scalar steps.
  constexpr uint64_t kMinBlockSeqs = 64;
  AdvanceStepTiling tiling{};
  tiling.num_seqs = align_up(num_seqs == 0 ? 1 : num_seqs, kAdvanceStepAlign);
  tiling.num_queries = num_queries;
  tiling.block_size = block_size;
  tiling.max_blocks = max_blocks;
  tiling.table_elems = num_seqs * max_blocks;
  uint64_t blocks = (tiling.num_seqs + kMinBlockSeqs - 1) / kMinBlockSeqs;
  if (blocks > cores) blocks = cores;
  if (blocks == 0) blocks = 1;
  tiling.block_seqs = align_up((tiling.num_seqs + blocks - 1) / blocks, kAdvanceStepAlign);
  tiling.block_dim =
      static_cast<uint32_t>((tiling.num_seqs + tiling.block_seqs - 1) / tiling.block_seqs);
  uint64_t tile = (ub_bytes - 256) / kBytesPerSeq / kAdvanceStepAlign * kAdvanceStepAlign;
  if (tile > tiling.block_seqs) tile = tiling.block_seqs;
  tiling.tile_seqs = static_cast<uint32_t>(tile);
  return tiling;
}

}  // namespace kiln::ascend
