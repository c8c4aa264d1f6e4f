// plan_move: dims in the destination's memory order, the row, the outer dims collapsed, then
// the UB tiles and the split over cores.
#include "kernels/ascend/op_move/move_tiling.h"

namespace kiln::ascend {
namespace {

// Bytes of UB kept back from the tiles for the 32-byte rounding of each buffer.
constexpr size_t kUbSlack = 256;
// Work a core is given at least, so small moves do not pay for launching every core.
constexpr uint64_t kMinBlockBytes = 16 * 1024;
// Elements of the k dim per transposed tile (a multiple of every dtype's block).
constexpr uint64_t kTransposeTileK = 64;
// Rows per tile: a strided DataCopy moves at most 4095 blocks of a row each.
constexpr uint64_t kMaxTileRows = 4095;

struct Dim {
  uint64_t size;
  uint64_t src;
  uint64_t dst;
  bool gathered;
};

uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

}  // namespace

const char* plan_move(const MoveShape& shape, uint64_t row_len, uint64_t dst_rows,
                      size_t element_size, uint64_t src_elems, size_t ub_bytes, uint32_t cores,
                      MoveTiling* tiling) {
  // Dims of size 1 never move to another element; the rest in the destination's memory order
  // (its strides decrease outward, as its layout is dense).
  Dim dims[MoveShape::kMaxRank];
  size_t n = 0;
  uint64_t numel = 1;
  for (size_t d = 0; d < shape.rank; ++d) {
    if (shape.sizes[d] < 0 || shape.src_strides[d] < 0 || shape.dst_strides[d] < 0) {
      return "a negative size or stride";
    }
    numel *= static_cast<uint64_t>(shape.sizes[d]);
    const bool gathered = shape.gathered && d == 0;
    if (shape.sizes[d] == 1 && !gathered) continue;
    Dim dim{static_cast<uint64_t>(shape.sizes[d]), static_cast<uint64_t>(shape.src_strides[d]),
            static_cast<uint64_t>(shape.dst_strides[d]), gathered};
    size_t at = n++;
    while (at > 0 && !dims[at - 1].gathered && dims[at - 1].dst < dim.dst) {
      dims[at] = dims[at - 1];
      --at;
    }
    dims[at] = dim;
  }
  if (numel == 0) return "an empty copy";

  // The row: innermost dims, merged outward while they stay one run on both sides.
  uint64_t len = 1;
  uint64_t row_src = 1;
  const uint64_t wanted = row_len;
  while (n > 0) {
    const Dim& inner = dims[n - 1];
    if (inner.gathered || inner.dst != len) break;
    if (len > 1 && inner.src != row_src * len) break;
    if (wanted != 0 && len * inner.size > wanted) break;
    if (len == 1) row_src = inner.src;
    len *= inner.size;
    --n;
  }
  if (wanted != 0 && len != wanted) return "a copy into part of a destination row";
  if (wanted == 0) dst_rows = numel / len;
  if (len > (uint64_t{1} << 31)) return "rows of more than 2^31 elements";
  if (static_cast<uint64_t>(shape.dst_offset) % len != 0) {
    return "a copy into part of a destination row";
  }

  // Outer dims in rows of the destination, adjacent ones collapsed.
  Dim outer[MoveShape::kMaxRank];
  size_t m = 0;
  for (size_t d = 0; d < n; ++d) {
    if (dims[d].dst % len != 0) return "a destination stride inside a row";
    const Dim dim{dims[d].size, dims[d].src, dims[d].dst / len, dims[d].gathered};
    if (m > 0 && !outer[m - 1].gathered && outer[m - 1].src == dim.src * dim.size &&
        outer[m - 1].dst == dim.dst * dim.size) {
      outer[m - 1].size *= dim.size;
      outer[m - 1].src = dim.src;
      outer[m - 1].dst = dim.dst;
      continue;
    }
    outer[m++] = dim;
  }
  if (m > kMoveDims) return "more than 8 dims after collapsing";

  MoveTiling t{};
  t.outer = static_cast<uint32_t>(m);
  uint64_t rows = 1;
  for (size_t d = 0; d < m; ++d) {
    t.sizes[d] = outer[d].size;
    t.src_strides[d] = outer[d].src;
    t.dst_strides[d] = outer[d].dst;
    rows *= outer[d].size;
  }
  const uint64_t block = elements_per_block(element_size);
  t.src_offset = static_cast<uint64_t>(shape.src_offset);
  t.dst_row = static_cast<uint64_t>(shape.dst_offset) / len;
  t.src_elems = src_elems;
  t.dst_rows = dst_rows;
  t.row_len = static_cast<uint32_t>(len);
  t.pitch = static_cast<uint32_t>(align_up(len, block));
  t.row_src_stride = row_src;
  t.k_dim = kMoveDims;
  const uint64_t ub = ub_bytes > kUbSlack ? ub_bytes - kUbSlack : 0;
  uint64_t unit_bytes = 0;
  if (row_src == 1 || len == 1) {
    // Double-buffered input and output chunks.
    t.mode = static_cast<uint32_t>(MoveMode::Rows);
    t.row_src_stride = 1;
    uint64_t buffer = ub / (4 * element_size) / block * block;
    if (buffer < block) buffer = block;
    t.tile_rows = 1;
    if (m > 0 && t.pitch <= buffer) {
      const uint64_t inner = outer[m - 1].size;
      // No more rows per tile than spreads the rows over every core.
      const uint64_t per_core = (rows + cores - 1) / (cores == 0 ? 1 : cores);
      uint64_t tile_rows = min_u64(min_u64(inner, buffer / t.pitch), kMaxTileRows);
      tile_rows = min_u64(tile_rows, per_core);
      t.tile_rows = static_cast<uint32_t>(tile_rows == 0 ? 1 : tile_rows);
      t.chunk = t.pitch;
      t.units = rows / inner * ((inner + t.tile_rows - 1) / t.tile_rows);
    } else {
      t.chunk = static_cast<uint32_t>(min_u64(buffer, t.pitch));
      t.units = rows * ((t.pitch + t.chunk - 1) / t.chunk);
    }
    unit_bytes = uint64_t{t.chunk} * t.tile_rows * element_size;
  } else {
    // A tile is tile_k source runs per row element in, tile_k rows of `chunk` out; each side
    // double-buffered. Its k dim is the largest outer dim that is contiguous in the source.
    t.mode = static_cast<uint32_t>(MoveMode::Transpose);
    uint64_t k_size = 1;
    for (size_t d = 0; d < m; ++d) {
      if (outer[d].src == 1 && outer[d].size > k_size) {
        k_size = outer[d].size;
        t.k_dim = static_cast<uint32_t>(d);
      }
    }
    const uint64_t a = min_u64(k_size, kTransposeTileK);
    const uint64_t a_pitch = align_up(a, block);
    uint64_t b = ub / (2 * element_size * (a_pitch + a)) / block * block;
    b = min_u64(min_u64(b, t.pitch), 1024);
    if (b < block) b = block;
    t.tile_k = static_cast<uint32_t>(a);
    t.chunk = static_cast<uint32_t>(b);
    t.units = rows / k_size * ((k_size + a - 1) / a) * ((len + b - 1) / b);
    unit_bytes = a * b * element_size;
  }
  uint64_t blocks = (t.units * unit_bytes + kMinBlockBytes - 1) / kMinBlockBytes;
  blocks = min_u64(min_u64(blocks, cores), t.units);
  if (blocks == 0) blocks = 1;
  t.block_units = (t.units + blocks - 1) / blocks;
  t.block_dim = static_cast<uint32_t>((t.units + t.block_units - 1) / t.block_units);
  *tiling = t;
  return nullptr;
}

}  // namespace kiln::ascend
