// Tiling of reshape_and_cache: a POD the host fills with kv_cache_tiling().
//
// Tokens are rows of num_kv_heads * head_size elements, padded to a 32-byte pitch in GM on both
// sides (the new keys and values, and the caches' slots), so every DataCopy moves whole blocks.
// The cores split the tokens as the row kernels split rows (RowSplit): a tile of consecutive
// tokens comes in with one DataCopy and each row goes out to its own slot; a row longer than a
// tile goes through UB in chunks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/row_split.h"

namespace kiln::ascend {

struct KvCacheTiling {
  uint64_t slots;  // num_blocks * block_size: the caches' rows
  RowSplit split;  // the tokens
};

// Pure: the split of `tokens` rows of `row_len` elements of `element_size` bytes on a device with
// `ub_bytes` of UB per core and `cores` vector cores.
KvCacheTiling kv_cache_tiling(uint64_t tokens, uint64_t row_len, uint64_t slots,
                              size_t element_size, size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
