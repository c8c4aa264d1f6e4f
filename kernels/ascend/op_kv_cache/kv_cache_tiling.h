// Tiling of the KV cache writes (reshape_and_cache, llama::update_cache and its kin): a POD the
// host fills with kv_cache_tiling().
//
// Tokens are rows of the cache's row_len elements (num_kv_heads * head_size). The caches' slots
// are padded to a 32-byte pitch in GM; the new rows lie as `keys` and `values` say (gm_rows.h):
// padded to the pitch, or where a row view has them, some stride apart (row_image.h), so every
// DataCopy moves whole blocks. The cores split the tokens as the row kernels split rows
// (RowSplit): a tile of consecutive tokens comes in with one (strided) DataCopy and each row goes
// out to its own slot; a row longer than a tile goes through UB in chunks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/gm_rows.h"
#include "kernels/ascend/common/row_split.h"

namespace kiln::ascend {

struct KvCacheTiling {
  uint64_t slots;  // the caches' rows
  RowSplit split;  // the tokens
  GmRows keys;     // where token t's new rows are
  GmRows values;
  uint32_t caches;    // 2: keys and values into their caches; 1: keys into key_cache only
  uint32_t reserved;  // keeps the layout free of implicit padding (host and device agree)
};

// Elements between consecutive rows of `row_len` elements of `element_size` bytes in GM: the row
// padded to 32 bytes.
constexpr uint64_t kv_cache_pitch(uint64_t row_len, size_t element_size) {
  return align_up(row_len, elements_per_block(element_size));
}

// Pure: the split of `tokens` rows of `row_len` elements of `element_size` bytes into `caches`
// (1 or 2) caches of `slots` rows on a device with `ub_bytes` of UB per core and `cores` vector
// cores.
KvCacheTiling kv_cache_tiling(uint64_t tokens, uint64_t row_len, uint64_t slots, uint32_t caches,
                              size_t element_size, size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
