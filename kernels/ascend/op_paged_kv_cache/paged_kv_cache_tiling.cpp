// Tiling of reshape_and_cache.paged_layout (paged_kv_cache_tiling.h).
#include "kernels/ascend/op_paged_kv_cache/paged_kv_cache_tiling.h"

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

PagedKvCacheTiling paged_kv_cache_tiling(uint64_t writes, uint32_t touched, uint32_t kv_heads,
                                         uint32_t head_size, uint32_t block_size,
                                         size_t element_size, uint32_t cores) {
  PagedKvCacheTiling t{};
  t.writes = writes;
  t.touched = touched;
  t.kv_heads = kv_heads;
  t.head_size = head_size;
  t.block_size = block_size;
  t.x = static_cast<uint32_t>(16 / element_size);
  t.row_copy = static_cast<uint32_t>(align_up(head_size, elements_per_block(element_size)));
  t.keys = {align_up(uint64_t{kv_heads} * head_size, elements_per_block(element_size)), 1, 0};
  t.values = t.keys;
  t.units = touched * kv_heads;
  const uint32_t blocks = t.units < cores ? t.units : cores;
  t.block_units = blocks == 0 ? 0 : (t.units + blocks - 1) / blocks;
  t.block_dim = t.block_units == 0 ? 1 : (t.units + t.block_units - 1) / t.block_units;
  return t;
}

}  // namespace kiln::ascend
