// Tiling of kiln::reshape_and_cache.paged_layout on Ascend: a POD the host fills with
// paged_kv_cache_tiling().
//
// vLLM's paged layout keeps a (cache block, kv head) pair's keys as one tile [head_size / x,
// block_size, x] (x: the elements in 16 bytes) and its values as one tile [head_size,
// block_size], each head_size * block_size elements in a row of GM. A token's row lands in 16-byte
// pieces (keys) and single elements (values) across its tile, finer than a DataCopy moves, so a
// unit of work is a whole tile pair: the block's tiles come into UB, each token the block takes
// copies its head's key and value rows in and the scalar unit places their elements, and the
// tiles go back. Units are the written blocks times the kv heads, spread over the cores; two
// units never share a tile, so no two cores write the same bytes.
//
// GM: keys and values laid out as `keys` / `values` say (gm_rows.h), row t being token t's
// rows of every kv head, head h's from element h * head_size; the caches as in the paged layout;
// `plan`, int64: the written blocks' numbers (touched of them), then where each one's writes start
// in the write list and where the list ends (touched + 1), then the writes as (token, offset in the
// block) pairs, tokens of one block together.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/gm_rows.h"

namespace kiln::ascend {

struct PagedKvCacheTiling {
  GmRows keys;
  GmRows values;
  uint64_t writes;   // (token, offset) pairs in plan
  uint32_t touched;  // cache blocks written
  uint32_t kv_heads;
  uint32_t head_size;
  uint32_t block_size;
  uint32_t x;            // elements of a key chunk (16 bytes)
  uint32_t row_copy;     // elements copied of a head's row: head_size in whole 32-byte blocks
  uint32_t units;        // touched x kv_heads
  uint32_t block_units;  // units per core
  uint32_t block_dim;
  uint32_t reserved;  // keeps the layout free of implicit padding (host and device agree)
};

// Bytes of UB a unit takes: the key and value tiles and one head's key and value rows.
constexpr uint64_t paged_kv_cache_ub_bytes(uint64_t head_size, uint64_t block_size,
                                           uint64_t row_copy, size_t element_size) {
  return (2 * head_size * block_size + 2 * row_copy) * element_size;
}

// Pure: the tiling of `writes` token writes into `touched` cache blocks with `kv_heads` heads of
// `head_size` elements of `element_size` bytes, blocks of `block_size` tokens, over `cores`
// vector cores; keys and values padded rows until the host sets their images.
PagedKvCacheTiling paged_kv_cache_tiling(uint64_t writes, uint32_t touched, uint32_t kv_heads,
                                         uint32_t head_size, uint32_t block_size,
                                         size_t element_size, uint32_t cores);

}  // namespace kiln::ascend
