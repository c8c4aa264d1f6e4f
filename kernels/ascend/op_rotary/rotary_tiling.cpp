// Tiling of rotary_embedding (rotary_tiling.h).
#include "kernels/ascend/op_rotary/rotary_tiling.h"

namespace kiln::ascend {

RotaryTiling rotary_tiling(uint64_t tokens, uint64_t positions, uint32_t heads, uint64_t half,
                           size_t element_size, size_t cache_size, size_t ub_bytes,
                           uint32_t cores) {
  RotaryTiling tiling{};
  tiling.tokens = tokens;
  tiling.positions = positions;
  tiling.heads = heads;
  tiling.plane = static_cast<uint32_t>(align_up(half == 0 ? 1 : half, kRotaryPlaneAlign));
  const uint64_t head = 2 * uint64_t{tiling.plane};  // elements of a staged head
  uint64_t blocks = tokens < cores ? tokens : cores;
  if (blocks == 0) blocks = 1;
  tiling.block_tokens = (tokens + blocks - 1) / blocks;
  if (tiling.block_tokens == 0) tiling.block_tokens = 1;
  tiling.block_dim =
      static_cast<uint32_t>((tokens + tiling.block_tokens - 1) / tiling.block_tokens);
  if (tiling.block_dim == 0) tiling.block_dim = 1;
  // Per token: the cache row (its staged dtype and float) and a float scratch plane; per head of
  // a tile: double-buffered in and out tiles and their float views.
  const uint64_t fixed = head * (cache_size + 4) + tiling.plane * 4 + 256;
  const uint64_t per_head = head * (4 * element_size + 8);
  uint64_t tile = fixed < ub_bytes ? (ub_bytes - fixed) / per_head : 0;
  if (tile > heads) tile = heads;
  tiling.tile_heads = static_cast<uint32_t>(tile);
  return tiling;
}

}  // namespace kiln::ascend
