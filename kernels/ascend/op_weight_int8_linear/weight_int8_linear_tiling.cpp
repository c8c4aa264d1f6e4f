// weight_int8_linear_tiling: channel tiles spread over the cores, then the longest chunk of k (up
// to kMaxChunk) that lets UB hold up to kMaxTokenTile rows of x, and as many rows as it holds.
#include "kernels/ascend/op_weight_int8_linear/weight_int8_linear_tiling.h"

#include "kernels/ascend/common/row_split.h"

namespace kiln::ascend {
namespace {

// Longer chunks mean fewer instructions per dot product, but fewer rows of x held at once.
constexpr uint32_t kMaxChunk = 4096;
constexpr uint32_t kMaxTokenTile = 16;
constexpr uint32_t kMaxChannelTile = 256;
constexpr uint32_t kMinChunk = 512;
// Per-buffer rounding to 32 bytes, for every buffer the kernel takes.
constexpr size_t kSlack = 16 * 32;

// Rows of x whose chunk (in float) and accumulators fit in UB beside the rest.
uint64_t rows_of_x(uint32_t chunk, size_t per_chunk, size_t fixed, uint32_t channel_tile,
                   size_t ub_bytes) {
  const size_t used = fixed + size_t{chunk} * per_chunk;
  const size_t per_row = size_t{chunk} * sizeof(float) + channel_tile * sizeof(float);
  return used < ub_bytes ? (ub_bytes - used) / per_row : 0;
}

}  // namespace

WeightInt8LinearTiling weight_int8_linear_tiling(DeviceDtype dtype, uint64_t m, uint32_t n,
                                                 uint32_t k, size_t ub_bytes, uint32_t cores) {
  const size_t size = device_element_size(dtype);
  const bool wide = size != sizeof(float);
  WeightInt8LinearTiling t{};
  t.dtype = static_cast<uint32_t>(dtype);
  t.m = m;
  t.n = n;
  t.k = k;
  t.pitch = static_cast<uint32_t>(align_up(k, kWeightInt8Repeat));
  t.y_pitch = static_cast<uint32_t>(align_up(n, elements_per_block(size)));
  const uint32_t per_core = static_cast<uint32_t>((n + cores - 1) / (cores == 0 ? 1 : cores));
  uint32_t channel_tile = static_cast<uint32_t>(align_up(per_core, kWeightInt8ChannelAlign));
  if (channel_tile > kMaxChannelTile) channel_tile = kMaxChannelTile;
  t.channel_tile = channel_tile;
  t.tiles = (n + channel_tile - 1) / channel_tile;
  const uint32_t blocks = t.tiles < cores ? t.tiles : (cores == 0 ? 1 : cores);
  t.block_tiles = (t.tiles + blocks - 1) / blocks;
  t.block_dim = (t.tiles + t.block_tiles - 1) / t.block_tiles;
  // Per element of a chunk: the weight queue (2 x int8), its half and float forms, the
  // products, and (16-bit x) the staging buffer a row of x is widened from.
  const size_t per_chunk = 2 + 2 + 4 + 4 + (wide ? size : 0);
  const size_t fixed = reduce_work_bytes(kFloatRepeat) + 2 * channel_tile * size +
                       (wide ? channel_tile * sizeof(float) : 0) + kSlack;
  const uint64_t wanted = m < kMaxTokenTile ? m : kMaxTokenTile;
  // Halve the chunk (down to kMinChunk) until every wanted row of x fits: each token tile reads
  // the whole weight again, which costs more than the extra instructions of shorter chunks.
  uint32_t chunk = t.pitch < kMaxChunk ? t.pitch : kMaxChunk;
  uint64_t tokens = rows_of_x(chunk, per_chunk, fixed, channel_tile, ub_bytes);
  while (tokens < wanted && chunk > kMinChunk) {
    chunk = static_cast<uint32_t>(align_up(chunk / 2, kWeightInt8Repeat));
    tokens = rows_of_x(chunk, per_chunk, fixed, channel_tile, ub_bytes);
  }
  t.chunk = chunk;
  if (tokens > wanted) tokens = wanted;
  if (tokens == 0) tokens = 1;
  t.token_tile = static_cast<uint32_t>(tokens);
  t.has_bias = 0;
  return t;
}

}  // namespace kiln::ascend
