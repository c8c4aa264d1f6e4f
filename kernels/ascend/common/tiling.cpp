// split_elementwise: cores first, then the largest UB tile that fits every buffer.
#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

ElementwiseSplit split_elementwise(uint64_t count, size_t element_size, size_t bytes_per_element,
                                   size_t ub_bytes, uint32_t cores, uint64_t min_block_elems) {
  const uint64_t align = elements_per_repeat(element_size);
  const uint64_t aligned = align_up(count == 0 ? align : count, align);
  uint64_t blocks = (aligned + min_block_elems - 1) / min_block_elems;
  if (blocks > cores) blocks = cores;
  if (blocks == 0) blocks = 1;
  const uint64_t block_elems = align_up((aligned + blocks - 1) / blocks, align);
  // Rounding up per block can leave the last block empty: recount.
  blocks = (aligned + block_elems - 1) / block_elems;
  uint64_t tile = ub_bytes / bytes_per_element / align * align;
  if (tile > block_elems) tile = block_elems;
  if (tile < align) tile = align;
  return {aligned, static_cast<uint32_t>(blocks), block_elems, static_cast<uint32_t>(tile)};
}

}  // namespace kiln::ascend
