// Tiling of advance_step_flashattn: a POD the host fills with advance_step_tiling().
//
// The sequences are padded to a multiple of 8 (kAdvanceStepAlign), so that each core's share and
// each tile of it is whole 32-byte blocks of the Int lengths and of the Long tokens, positions
// and slots: every DataCopy moves whole blocks and no two cores write one block.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::ascend {

constexpr uint64_t kAdvanceStepAlign = 8;

struct AdvanceStepTiling {
  uint64_t num_seqs;     // sequences padded to kAdvanceStepAlign: what the GM buffers hold
  uint64_t num_queries;  // sequences that advance; the rest are padding
  int64_t block_size;
  uint64_t max_blocks;   // block_tables' width
  uint64_t table_elems;  // block_tables' elements (its GM view)
  uint64_t block_seqs;   // sequences per core, a multiple of kAdvanceStepAlign
  uint32_t tile_seqs;    // sequences per UB tile, a multiple of kAdvanceStepAlign
  uint32_t block_dim;
};

// Pure: the split of `num_seqs` sequences over `cores` vector cores and `ub_bytes` of UB.
AdvanceStepTiling advance_step_tiling(uint64_t num_seqs, uint64_t num_queries, int64_t block_size,
                                      uint64_t max_blocks, size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
