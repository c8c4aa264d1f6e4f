// Tiling of rotary_embedding: a POD the host fills with rotary_tiling().
//
// The host stages each head's rotated pairs as two planes, the pairs' first elements (x) then
// their second (y), each padded to `plane` elements (a multiple of 16: whole 32-byte blocks of
// half and of float), so that every vector operand is aligned whatever the layout (NeoX or
// GPT-J) and rot_dim. The cache is staged the same way per position: cosines, then sines. A
// token's query heads and key heads form one row of `heads` heads; the cores split the tokens.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/ascend/common/tiling.h"

namespace kiln::ascend {

// The launch key of a heads dtype and a cache dtype.
constexpr uint32_t rotary_key(DeviceDtype heads, DeviceDtype cache) {
  return static_cast<uint32_t>(heads) * 3 + static_cast<uint32_t>(cache);
}

constexpr uint32_t kRotaryPlaneAlign = 16;

struct RotaryTiling {
  uint64_t tokens;
  uint64_t positions;     // the cache's rows
  uint64_t block_tokens;  // tokens per core; the last core may get fewer
  uint32_t heads;         // query heads plus key heads
  uint32_t plane;         // rot_dim / 2 padded to kRotaryPlaneAlign
  uint32_t tile_heads;    // heads per UB tile
  uint32_t block_dim;
};

// Pure: the split for `tokens` tokens of `heads` heads of rot_dim / 2 = `half` pairs, heads of
// `element_size` bytes and a cache of `cache_size` bytes per element.
RotaryTiling rotary_tiling(uint64_t tokens, uint64_t positions, uint32_t heads, uint64_t half,
                           size_t element_size, size_t cache_size, size_t ub_bytes, uint32_t cores);

}  // namespace kiln::ascend
