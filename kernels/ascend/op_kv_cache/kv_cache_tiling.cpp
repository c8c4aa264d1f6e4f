// Tiling of the KV cache writes (kv_cache_tiling.h).
#include "kernels/ascend/op_kv_cache/kv_cache_tiling.h"

namespace kiln::ascend {

KvCacheTiling kv_cache_tiling(uint64_t tokens, uint64_t row_len, uint64_t slots, uint32_t caches,
                              size_t element_size, size_t ub_bytes, uint32_t cores) {
  // Two double-buffered queues (in, out) of one tile each: four tile-sized buffers.
  RowUbCosts costs{};
  costs.per_tile_element = 4 * element_size;
  costs.per_chunk_element = 4 * element_size;
  costs.fixed = 128;
  KvCacheTiling tiling{};
  tiling.slots = slots;
  tiling.caches = caches;
  tiling.split = split_rows(tokens, row_len, element_size, costs, ub_bytes, cores);
  tiling.keys = {tiling.split.pitch, 1, 0};  // packed rows, until the host says otherwise
  tiling.values = tiling.keys;
  return tiling;
}

}  // namespace kiln::ascend
